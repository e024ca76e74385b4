#include "graph_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMouseEvent>
#include <QProgressBar>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "diagnosis_list.h"
#include "display_format.h"
#include "graph_minimap.h"
#include "graph_scene_items.h"
#include "sqnr_colours.h"
#include "sqnr_fill_legend.h"
#include "worker_pool.h"

namespace ql::ui {
namespace {

constexpr qreal kMinScale = 0.04, kMaxScale = 4.0;
// The first view shows the whole graph when it stays readable at this scale, else the top of it
// at kReadableScale.
constexpr qreal kFitReadableScale = 0.8, kReadableScale = 0.9;
constexpr int kClickSlopPx = 4;
constexpr int kMaxEdgeToolTipLines = 6;

// The same nodes wired the same way (the outline only depends on this and the value infos).
bool sameStructure(const Graph &a, const Graph &b) {
    auto sameValues = [](const std::vector<ValueInfo> &x, const std::vector<ValueInfo> &y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                          [](const ValueInfo &p, const ValueInfo &q) {
                              return p.name == q.name && p.shape == q.shape;
                          });
    };
    return sameValues(a.inputs, b.inputs) && sameValues(a.outputs, b.outputs) &&
           std::equal(a.nodes.begin(), a.nodes.end(), b.nodes.begin(), b.nodes.end(),
                      [](const Node &p, const Node &q) {
                          return p.name == q.name && p.opType == q.opType && p.inputs == q.inputs &&
                                 p.outputs == q.outputs;
                      });
}

}  // namespace

// A laid-out view of the outline: what is on the scene, or in the cache.
struct GraphView::Layout {
    QSet<int> collapsed;
    OutlineView view;
    GraphLayoutResult result;
};

// The view's canvas: wheel zooms around the mouse, dragging pans, a click (press and release
// within a few pixels) selects, a double-click toggles; Ctrl+F goes to the search field even
// though the window has a Ctrl+F of its own.
class GraphCanvas : public QGraphicsView {
public:
    GraphCanvas(QGraphicsScene *scene, GraphView *owner)
        : QGraphicsView(scene, owner), m_owner(owner) {
        setObjectName(QStringLiteral("graphCanvas"));
        setDragMode(QGraphicsView::ScrollHandDrag);
        setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
        setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
        setFocusPolicy(Qt::StrongFocus);
    }

    void zoomBy(qreal factor) {
        m_owner->m_userMoved = true;
        const qreal current = transform().m11();
        factor = std::clamp(current * factor, kMinScale, kMaxScale) / current;
        scale(factor, factor);
    }

protected:
    bool event(QEvent *event) override {
        if (event->type() == QEvent::ShortcutOverride) {
            auto *key = static_cast<QKeyEvent *>(event);
            if (key->matches(QKeySequence::Find)) {
                event->accept();
                return true;
            }
        }
        return QGraphicsView::event(event);
    }
    void keyPressEvent(QKeyEvent *event) override {
        if (event->matches(QKeySequence::Find)) {
            m_owner->m_search->setFocus();
            m_owner->m_search->selectAll();
            return;
        }
        if (event->key() == Qt::Key_Plus || event->key() == Qt::Key_Equal) return zoomBy(1.25);
        if (event->key() == Qt::Key_Minus) return zoomBy(0.8);
        QGraphicsView::keyPressEvent(event);
    }
    void wheelEvent(QWheelEvent *event) override {
        const double steps = event->angleDelta().y() / 120.0;
        if (steps != 0) zoomBy(std::pow(1.2, steps));
        event->accept();
    }
    void mousePressEvent(QMouseEvent *event) override {
        m_owner->m_userMoved = true;
        m_pressAt = event->position().toPoint();
        QGraphicsView::mousePressEvent(event);
    }
    void mouseReleaseEvent(QMouseEvent *event) override {
        QGraphicsView::mouseReleaseEvent(event);
        if (event->button() != Qt::LeftButton ||
            (event->position().toPoint() - m_pressAt).manhattanLength() > kClickSlopPx)
            return;
        for (QGraphicsItem *item : items(event->position().toPoint())) {
            if (auto *box = qgraphicsitem_cast<GraphBoxItem *>(item))
                return m_owner->onBoxClicked(box);
            if (auto *cluster = qgraphicsitem_cast<GraphClusterItem *>(item))
                return m_owner->onClusterClicked(cluster->group());
        }
    }
    void contextMenuEvent(QContextMenuEvent *event) override {
        for (QGraphicsItem *item : items(event->pos()))
            if (auto *box = qgraphicsitem_cast<GraphBoxItem *>(item))
                return m_owner->onBoxContextMenu(box, event->globalPos());
        QGraphicsView::contextMenuEvent(event);
    }
    void mouseDoubleClickEvent(QMouseEvent *event) override {
        for (QGraphicsItem *item : items(event->position().toPoint()))
            if (auto *box = qgraphicsitem_cast<GraphBoxItem *>(item))
                return m_owner->onBoxDoubleClicked(box);
        QGraphicsView::mouseDoubleClickEvent(event);
    }
    void resizeEvent(QResizeEvent *event) override {
        QGraphicsView::resizeEvent(event);
        m_owner->positionOverlays();
        // Until the user zooms or pans, the first view follows the canvas' size.
        if (!m_owner->m_userMoved && m_owner->m_layout) m_owner->showInitialView();
    }

private:
    GraphView *m_owner;
    QPoint m_pressAt;
};

GraphView::GraphView(QWidget *parent)
    : QWidget(parent),
      m_watcher(new QFutureWatcher<GraphLayoutResult>(this)),
      m_scene(new QGraphicsScene(this)) {
    m_canvas = new GraphCanvas(m_scene, this);
    m_minimap = new GraphMinimap(m_canvas, m_canvas);
    m_minimap->resize(170, 130);
    m_legend = new SqnrFillLegend(m_canvas);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(makeToolBar());
    layout->addWidget(m_canvas, 1);
    connect(m_watcher, &QFutureWatcher<GraphLayoutResult>::finished, this, [this] {
        if (!m_pending) return;
        auto done = std::make_shared<Layout>(*m_pending);
        done->result = m_watcher->result();
        m_pending.reset();
        m_layoutCache.insert(layoutKey(done->collapsed), done);
        applyLayout(done);
    });
    setColouring(Colouring::Cumulative);
    setGraph(nullptr);
    setReport(nullptr);
}

GraphView::~GraphView() {
    // A running layout finishes on its worker; its result goes nowhere.
    m_watcher->disconnect(this);
}

QWidget *GraphView::makeToolBar() {
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    auto *colourCaption = new QLabel(tr("&Fill:"), bar);
    m_colourBox = new QComboBox(bar);
    m_colourBox->setObjectName(QStringLiteral("graphColouring"));
    m_colourBox->addItems({tr("Cumulative SQNR"), tr("Isolated SQNR"), tr("Weight SQNR")});
    m_colourBox->setToolTip(tr("What the boxes' colour shows"));
    colourCaption->setBuddy(m_colourBox);
    connect(m_colourBox, &QComboBox::currentIndexChanged, this,
            [this](int index) { setColouring(Colouring(index)); });
    m_qdqBox = new QCheckBox(tr("&Q/DQ nodes"), bar);
    m_qdqBox->setObjectName(QStringLiteral("graphShowQdq"));
    m_qdqBox->setToolTip(tr("Show QuantizeLinear and DequantizeLinear nodes"));
    connect(m_qdqBox, &QCheckBox::toggled, this, &GraphView::setShowQdq);
    m_shapeBox = new QCheckBox(tr("&Shape ops"), bar);
    m_shapeBox->setObjectName(QStringLiteral("graphShowShapeOps"));
    m_shapeBox->setToolTip(
        tr("Show shape arithmetic: nodes with only integer outputs (Shape, Gather of dims, ...)"));
    connect(m_shapeBox, &QCheckBox::toggled, this, &GraphView::setShowShapeComputations);
    auto button = [bar](const QString &text, const QString &tip, const char *name) {
        auto *b = new QToolButton(bar);
        b->setText(text);
        b->setToolTip(tip);
        b->setObjectName(QString::fromLatin1(name));
        return b;
    };
    QToolButton *expand = button(tr("Expand All"), tr("Open every group"), "graphExpandAll");
    connect(expand, &QToolButton::clicked, this, &GraphView::expandAll);
    QToolButton *collapse =
        button(tr("Collapse"), tr("Back to the groups closed at first"), "graphCollapse");
    connect(collapse, &QToolButton::clicked, this, &GraphView::collapseToDefault);
    QToolButton *fit = button(tr("Fit"), tr("Show the whole graph"), "graphFit");
    connect(fit, &QToolButton::clicked, this, &GraphView::fitToView);
    m_search = new QLineEdit(bar);
    m_search->setObjectName(QStringLiteral("graphSearch"));
    m_search->setPlaceholderText(tr("Find node (Ctrl+F, Enter: next)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(150);
    m_search->setMaximumWidth(260);
    connect(m_search, &QLineEdit::textChanged, this, [this] {
        m_lastFound = -1;
        updateMatches();
    });
    connect(m_search, &QLineEdit::returnPressed, this, &GraphView::findNext);
    m_busy = new QProgressBar(bar);
    m_busy->setObjectName(QStringLiteral("graphLayoutProgress"));
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(80);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_status = new QLabel(bar);
    m_status->setObjectName(QStringLiteral("graphStatus"));
    m_status->setForegroundRole(QPalette::PlaceholderText);
    row->addWidget(colourCaption);
    row->addWidget(m_colourBox);
    row->addWidget(m_qdqBox);
    row->addWidget(m_shapeBox);
    row->addSpacing(8);
    row->addWidget(expand);
    row->addWidget(collapse);
    row->addWidget(fit);
    row->addSpacing(8);
    row->addWidget(m_search, 1);
    row->addWidget(m_busy);
    row->addWidget(m_status);
    return bar;
}

QGraphicsView *GraphView::canvas() const {
    return m_canvas;
}

void GraphView::positionOverlays() {
    const QRect area = m_canvas->viewport()->geometry();
    m_legend->adjustSize();
    m_legend->move(area.left() + 6, area.top() + 6);
    m_minimap->move(area.right() - m_minimap->width() - 6, area.bottom() - m_minimap->height() - 6);
}

void GraphView::setGraph(std::shared_ptr<const Graph> graph) {
    // A re-run analysis loads the same model again: same outline, same layout, same view.
    const bool same = m_graph && graph && sameStructure(*m_graph, *graph);
    m_graph = std::move(graph);
    if (same) return;
    m_firstLayout = true;
    rebuildOutline();
}

void GraphView::rebuildOutline() {
    // The scene's items index the old outline: gone before the new one replaces it.
    m_layoutCache.clear();
    m_layout.reset();
    m_pending.reset();
    m_boxes.clear();
    m_scene->clear();
    m_outline = m_graph ? GraphOutline::build(*m_graph, m_options) : GraphOutline{};
    m_collapsed = m_outline.defaultCollapsed();
    m_currentNode = -1;
    m_lastFound = -1;
    rebuildLayerMap();
    requestLayout();
}

void GraphView::setReport(ReportPtr report) {
    const int layer = currentLayer();
    const bool sameNumbering =
        m_report && report && m_report->layers.size() == report->layers.size();
    m_report = std::move(report);
    rebuildLayerMap();
    m_legend->setVisible(m_report != nullptr);
    m_colourBox->setEnabled(m_report != nullptr);
    refreshLooks();
    // A toggle's report keeps the layers; a new analysis starts with none selected.
    if (!sameNumbering || layer < 0) setCurrentNode(-1, false);
}

void GraphView::setFindings(std::vector<analysis::Finding> findings) {
    m_findings = std::move(findings);
    refreshLooks();
}

void GraphView::setThresholdDb(double thresholdDb) {
    m_thresholdDb = thresholdDb;
    m_legend->setThresholdDb(thresholdDb);
    refreshLooks();
}

void GraphView::setColouring(Colouring colouring) {
    m_colouring = colouring;
    if (m_colourBox->currentIndex() != int(colouring)) m_colourBox->setCurrentIndex(int(colouring));
    m_legend->setCaption(m_colourBox->currentText());
    positionOverlays();
    refreshLooks();
}

void GraphView::setShowQdq(bool show) {
    if (show == m_options.showQdq) return;
    m_options.showQdq = show;
    if (m_qdqBox->isChecked() != show) m_qdqBox->setChecked(show);
    keepCurrentAcrossRebuild();
}

void GraphView::setShowShapeComputations(bool show) {
    if (show == m_options.showShapeComputations) return;
    m_options.showShapeComputations = show;
    if (m_shapeBox->isChecked() != show) m_shapeBox->setChecked(show);
    keepCurrentAcrossRebuild();
}

void GraphView::keepCurrentAcrossRebuild() {
    const int graphNode = m_currentNode >= 0 ? m_outline.nodes()[m_currentNode].graphNode : -1;
    rebuildOutline();
    if (graphNode >= 0) setCurrentNode(m_outline.nodeOfGraphNode(graphNode), false);
}

void GraphView::rebuildLayerMap() {
    const auto &nodes = m_outline.nodes();
    m_layerOfNode.assign(nodes.size(), -1);
    m_nodesOfLayer.clear();
    if (!m_report) {
        if (m_graph) m_nodesOfLayer.resize(m_graph->nodes.size());
        for (size_t n = 0; n < nodes.size(); ++n)
            if (nodes[n].graphNode >= 0) {
                m_layerOfNode[n] = nodes[n].graphNode;
                m_nodesOfLayer[nodes[n].graphNode].push_back(int(n));
            }
        return;
    }
    // A report layer is its float node and the nodes folded into it (BatchNormalization, Relu).
    std::unordered_map<std::string, int> nodeOfName;
    if (m_graph)
        for (size_t i = 0; i < m_graph->nodes.size(); ++i)
            nodeOfName.emplace(m_graph->nodes[i].name, m_outline.nodeOfGraphNode(int(i)));
    m_nodesOfLayer.resize(m_report->layers.size());
    for (size_t l = 0; l < m_report->layers.size(); ++l) {
        const analysis::LayerReport &layer = m_report->layers[l];
        auto claim = [&](const std::string &name) {
            auto it = nodeOfName.find(name);
            if (it == nodeOfName.end() || it->second < 0 || m_layerOfNode[it->second] >= 0) return;
            m_layerOfNode[it->second] = int(l);
            m_nodesOfLayer[l].push_back(it->second);
        };
        claim(layer.name);
        for (const std::string &folded : layer.foldedFloatNodes) claim(folded);
    }
}

int GraphView::layerOfNode(int node) const {
    return node >= 0 && node < int(m_layerOfNode.size()) ? m_layerOfNode[node] : -1;
}

int GraphView::currentLayer() const {
    return layerOfNode(m_currentNode);
}

std::optional<double> GraphView::figureOfLayer(int layer) const {
    if (!m_report || layer < 0 || layer >= int(m_report->layers.size())) return std::nullopt;
    const analysis::LayerReport &l = m_report->layers[size_t(layer)];
    switch (m_colouring) {
        case Colouring::Cumulative:
            return cumulativeSqnr(l);
        case Colouring::Isolated:
            return isolatedSqnr(l);
        case Colouring::Weight:
            return weightSqnr(l);
    }
    return std::nullopt;
}

QString GraphView::layoutKey(const QSet<int> &collapsed) const {
    QList<int> sorted(collapsed.begin(), collapsed.end());
    std::sort(sorted.begin(), sorted.end());
    QString key;
    for (int g : sorted) key += QString::number(g) + QLatin1Char(',');
    return key;
}

BoxLook GraphView::lookOf(const OutlineView::Item &it) const {
    BoxLook look;
    // The figure shown and the findings counted over the layers an item stands for.
    std::vector<int> nodes;
    if (it.isGroup) {
        const OutlineGroup &group = m_outline.groups()[size_t(it.index)];
        nodes = group.nodes;
        look.title = group.name;
        look.subtitle = group.nodeCount == 1 ? tr("1 node") : tr("%1 nodes").arg(group.nodeCount);
        look.stacked = true;
    } else {
        const OutlineNode &node = m_outline.nodes()[size_t(it.index)];
        nodes = {it.index};
        look.title = node.opType;
        look.subtitle = node.label;
        look.detail = node.shape;
        look.rounded = node.kind != OutlineNode::Kind::Op;
    }
    std::optional<double> worst;
    int fp32 = 0, layers = 0;
    QSet<int> seen;
    for (int n : nodes) {
        const int layer = layerOfNode(n);
        if (layer < 0 || !m_report || seen.contains(layer)) continue;
        seen.insert(layer);
        ++layers;
        if (isFp32(m_report->layers[size_t(layer)])) {
            ++fp32;
            continue;
        }
        if (auto figure = figureOfLayer(layer); figure && (!worst || *figure < *worst))
            worst = figure;
    }
    for (const analysis::Finding &finding : m_findings)
        if (finding.layer >= 0 && seen.contains(finding.layer)) ++look.findings;
    if (layers > 0 && fp32 == layers) {
        look.fp32 = true;
        look.fill = kFp32Color.lighter(160);
    } else if (worst) {
        look.fill = sqnrFill(worst, m_thresholdDb);
    }
    if (m_report && worst) {
        const QString db = tr("%1 dB").arg(formatDb(worst));
        look.detail = it.isGroup              ? tr("worst %1").arg(db)
                      : look.detail.isEmpty() ? db
                                              : tr("%1 · %2").arg(db, look.detail);
    }
    if (it.isGroup && fp32 > 0 && fp32 < layers)
        look.subtitle = tr("%1 · %2 fp32").arg(look.subtitle).arg(fp32);
    return look;
}

QString GraphView::toolTipOf(const OutlineView::Item &it) const {
    if (it.isGroup) {
        const OutlineGroup &group = m_outline.groups()[size_t(it.index)];
        return tr("<b>%1</b><br>%2 nodes, collapsed: click to open")
            .arg(group.path.toHtmlEscaped())
            .arg(group.nodeCount);
    }
    const OutlineNode &node = m_outline.nodes()[size_t(it.index)];
    QStringList lines{QStringLiteral("<b>%1</b>").arg(node.name.toHtmlEscaped()),
                      tr("%1 → %2").arg(node.opType, node.shape)};
    const int layer = layerOfNode(it.index);
    if (m_report && layer >= 0) {
        const analysis::LayerReport &l = m_report->layers[size_t(layer)];
        if (QString::fromStdString(l.name) != node.name)
            lines << tr("folded into %1").arg(QString::fromStdString(l.name).toHtmlEscaped());
        lines << tr("cumulative %1 dB · isolated %2 dB · weight %3 dB")
                     .arg(formatDb(cumulativeSqnr(l)), formatDb(isolatedSqnr(l)),
                          formatDb(weightSqnr(l)));
        lines << (isFp32(l) ? tr("runs in fp32") : tr("runs in int8")) +
                     (canToggle(l) ? tr(" · double-click to toggle") : QString());
        for (const analysis::Finding &finding : m_findings)
            if (finding.layer == layer)
                lines << QStringLiteral("⚠ ") + DiagnosisList::describe(finding).toHtmlEscaped();
    } else if (m_report && node.kind == OutlineNode::Kind::Op) {
        lines << tr("not a compared layer");
    }
    return lines.join(QStringLiteral("<br>"));
}

void GraphView::showEvent(QShowEvent *event) {
    QWidget::showEvent(event);
    if (m_layoutWanted) requestLayout();
}

void GraphView::requestLayout() {
    // Hidden views (the graph behind the chart) lay out when first shown.
    m_layoutWanted = !isVisible();
    if (m_layoutWanted) return;
    const QString key = layoutKey(m_collapsed);
    if (auto cached = m_layoutCache.value(key)) {
        m_pending.reset();  // a layout still running for another set is not wanted any more
        applyLayout(cached);
        return;
    }
    auto layout = std::make_shared<Layout>();
    layout->collapsed = m_collapsed;
    layout->view = m_outline.view(m_collapsed);
    GraphLayoutRequest request;
    const QFont font = m_canvas->font();
    // Boxes are sized for their text before layout, from the same looks the scene will show.
    for (const OutlineView::Item &item : layout->view.items)
        request.items.push_back({GraphBoxItem::sizeFor(lookOf(item), font), item.cluster});
    const qreal titleHeight = GraphClusterItem::titleHeight(font);
    const QFontMetricsF metrics(font);
    for (const OutlineView::Cluster &cluster : layout->view.clusters) {
        const QString title = m_outline.groups()[size_t(cluster.group)].name;
        request.clusters.push_back(
            {cluster.parent, QSizeF(metrics.horizontalAdvance(title) * 1.15 + 24, titleHeight)});
    }
    for (const OutlineView::Edge &edge : layout->view.edges)
        request.edges.push_back({edge.from, edge.to});
    m_pending = layout;
    m_layingOut = true;
    m_busy->show();
    m_status->setText(layout->view.items.size() == 1
                          ? tr("Laying out 1 box…")
                          : tr("Laying out %1 boxes…").arg(layout->view.items.size()));
    m_watcher->setFuture(runInBackground([request] { return layOutGraph(request); }));
}

void GraphView::applyLayout(const std::shared_ptr<const Layout> &layout) {
    m_layingOut = false;
    m_busy->hide();
    m_layout = layout;
    m_scene->clear();
    m_boxes.clear();
    const GraphLayoutResult &result = layout->result;
    if (!result.error.isEmpty()) {
        m_status->setText(tr("Layout failed: %1").arg(result.error));
        emit layoutFinished();
        return;
    }
    m_lastLayoutMs = result.milliseconds;
    for (size_t c = 0; c < layout->view.clusters.size(); ++c) {
        const OutlineGroup &group = m_outline.groups()[size_t(layout->view.clusters[c].group)];
        auto *item = new GraphClusterItem(layout->view.clusters[c].group, result.clusters[int(c)],
                                          group.name);
        item->setToolTip(tr("<b>%1</b><br>%2 nodes: click the title to collapse")
                             .arg(group.path.toHtmlEscaped())
                             .arg(group.nodeCount));
        m_scene->addItem(item);
    }
    for (size_t e = 0; e < layout->view.edges.size(); ++e) {
        const GraphLayoutResult::EdgePath &path = result.edges[int(e)];
        auto *item = new GraphEdgeItem(path.path, path.arrowBase, path.arrowTip);
        QStringList lines;
        const auto &outlineEdges = layout->view.edges[e].outline;
        for (size_t k = 0; k < outlineEdges.size() && k < size_t(kMaxEdgeToolTipLines); ++k) {
            const OutlineEdge &edge = m_outline.edges()[size_t(outlineEdges[k])];
            lines << tr("%1: %2").arg(edge.value.toHtmlEscaped(), edge.shape);
        }
        if (outlineEdges.size() > size_t(kMaxEdgeToolTipLines))
            lines << tr("… %1 more").arg(outlineEdges.size() - kMaxEdgeToolTipLines);
        item->setToolTip(lines.join(QStringLiteral("<br>")));
        m_scene->addItem(item);
    }
    for (size_t i = 0; i < layout->view.items.size(); ++i) {
        const OutlineView::Item &item = layout->view.items[i];
        auto *box = new GraphBoxItem(int(i), result.items[int(i)], lookOf(item));
        box->setToolTip(toolTipOf(item));
        m_scene->addItem(box);
        m_boxes.push_back(box);
    }
    m_scene->setSceneRect(result.bounds.adjusted(-40, -40, 40, 40));
    const int boxes = int(layout->view.items.size());
    m_status->setText(boxes == 1 ? tr("1 box") : tr("%1 boxes").arg(boxes));
    m_status->setToolTip(tr("Laid out by Graphviz dot in %1 ms")
                             .arg(QLocale().toString(result.milliseconds, 'f', 0)));
    updateCurrentBox();
    updateMatches();
    // The minimap takes the scene's shape (tall graphs get a tall, narrow one).
    const QSizeF room(170, 220);
    const qreal scale = std::min(room.width() / m_scene->sceneRect().width(),
                                 room.height() / m_scene->sceneRect().height());
    m_minimap->resize(std::max(40, int(m_scene->sceneRect().width() * scale)) + 2,
                      std::max(40, int(m_scene->sceneRect().height() * scale)) + 2);
    positionOverlays();
    m_minimap->fitScene();
    m_minimap->setVisible(boxes > 12);
    if (m_firstLayout) {
        m_firstLayout = false;
        m_userMoved = false;
        showInitialView();
    } else if (GraphBoxItem *current = boxOfNode(m_currentNode); current && m_focusGroup < 0) {
        m_canvas->centerOn(current);
    } else if (m_focusGroup >= 0) {
        // The group just opened or closed: its frame or box where the eye was.
        QRectF place;
        if (GraphBoxItem *box = boxOfGroup(m_focusGroup)) place = box->sceneBoundingRect();
        for (QGraphicsItem *item : m_scene->items())
            if (auto *cluster = qgraphicsitem_cast<GraphClusterItem *>(item);
                cluster && cluster->group() == m_focusGroup)
                place = cluster->sceneBoundingRect();
        if (!place.isEmpty()) m_canvas->centerOn(place.center().x(), place.top() + 100);
    }
    m_focusGroup = -1;
    emit layoutFinished();
}

void GraphView::showInitialView() {
    const QRectF bounds = m_scene->sceneRect();
    if (bounds.isEmpty()) return;
    m_canvas->resetTransform();
    const QSize area = m_canvas->viewport()->size();
    const qreal fit = std::min(area.width() / bounds.width(), area.height() / bounds.height());
    if (fit >= kFitReadableScale) {
        m_canvas->fitInView(bounds, Qt::KeepAspectRatio);
        if (m_canvas->transform().m11() > 1.0) m_canvas->resetTransform();
        m_canvas->centerOn(bounds.center());
        return;
    }
    m_canvas->scale(kReadableScale, kReadableScale);
    // The inputs at the top, in the middle of the width.
    m_canvas->centerOn(bounds.center().x(), bounds.top() + area.height() / kReadableScale / 2);
}

void GraphView::fitToView() {
    if (m_scene->sceneRect().isEmpty()) return;
    m_canvas->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    if (m_canvas->transform().m11() > 1.0) m_canvas->resetTransform();
}

void GraphView::refreshLooks() {
    if (!m_layout) return;
    for (size_t i = 0; i < m_boxes.size(); ++i) {
        const OutlineView::Item &item = m_layout->view.items[i];
        m_boxes[i]->setLook(lookOf(item));
        m_boxes[i]->setToolTip(toolTipOf(item));
    }
}

GraphBoxItem *GraphView::boxOfNode(int node) const {
    if (!m_layout || node < 0 || node >= int(m_layout->view.itemOfNode.size())) return nullptr;
    const int item = m_layout->view.itemOfNode[size_t(node)];
    return item >= 0 && item < int(m_boxes.size()) ? m_boxes[size_t(item)] : nullptr;
}

GraphBoxItem *GraphView::boxOfLayer(int layer) const {
    if (layer < 0 || layer >= int(m_nodesOfLayer.size())) return nullptr;
    for (int node : m_nodesOfLayer[size_t(layer)])
        if (GraphBoxItem *box = boxOfNode(node);
            box && !m_layout->view.items[size_t(box->item())].isGroup)
            return box;
    return nullptr;
}

GraphBoxItem *GraphView::boxOfGroup(int group) const {
    for (GraphBoxItem *box : m_boxes) {
        const OutlineView::Item &item = m_layout->view.items[size_t(box->item())];
        if (item.isGroup && item.index == group) return box;
    }
    return nullptr;
}

void GraphView::updateCurrentBox() {
    GraphBoxItem *current = boxOfNode(m_currentNode);
    for (GraphBoxItem *box : m_boxes) box->setCurrent(box == current);
}

void GraphView::updateMatches() {
    const QString text = m_search->text().trimmed();
    std::vector<bool> matched(m_boxes.size(), false);
    if (!text.isEmpty() && m_layout)
        for (size_t n = 0; n < m_outline.nodes().size(); ++n) {
            const OutlineNode &node = m_outline.nodes()[n];
            if (node.name.contains(text, Qt::CaseInsensitive) ||
                node.opType.compare(text, Qt::CaseInsensitive) == 0) {
                const int item = m_layout->view.itemOfNode[n];
                if (item >= 0 && item < int(matched.size())) matched[size_t(item)] = true;
            }
        }
    for (size_t i = 0; i < m_boxes.size(); ++i) m_boxes[i]->setMatch(matched[i]);
}

void GraphView::findNext() {
    const QString text = m_search->text().trimmed();
    const auto &nodes = m_outline.nodes();
    if (text.isEmpty() || nodes.empty()) return;
    const int start = m_lastFound >= 0 ? m_lastFound : m_currentNode;
    for (size_t step = 1; step <= nodes.size(); ++step) {
        const int n = int((size_t(std::max(start, -1) + 1) + step - 1) % nodes.size());
        if (nodes[size_t(n)].name.contains(text, Qt::CaseInsensitive) ||
            nodes[size_t(n)].opType.compare(text, Qt::CaseInsensitive) == 0) {
            m_lastFound = n;
            setCurrentNode(n, true);
            m_status->setText(tr("Found %1").arg(nodes[size_t(n)].name));
            return;
        }
    }
    m_status->setText(tr("No node matches “%1”").arg(text));
}

void GraphView::selectLayer(int layer) {
    if (layer == currentLayer() && (layer >= 0 || m_currentNode < 0)) return;
    const bool known =
        layer >= 0 && layer < int(m_nodesOfLayer.size()) && !m_nodesOfLayer[size_t(layer)].empty();
    setCurrentNode(known ? m_nodesOfLayer[size_t(layer)].front() : -1, false);
}

void GraphView::setCurrentNode(int node, bool notify) {
    const int before = currentLayer();
    m_currentNode = node;
    // Open the groups around it, so its own box shows.
    bool opened = false;
    if (node >= 0)
        for (int g : m_outline.groupsAround(node))
            if (m_collapsed.remove(g)) opened = true;
    if (opened) {
        requestLayout();  // selects and centres when it is in
    } else {
        updateCurrentBox();
        if (GraphBoxItem *box = boxOfNode(node)) m_canvas->ensureVisible(box, 60, 60);
    }
    if (notify && currentLayer() != before)
        emit currentLayerChanged(currentLayer());
    else if (notify && node >= 0 && currentLayer() < 0)
        emit currentLayerChanged(-1);
}

void GraphView::onBoxClicked(GraphBoxItem *box) {
    const OutlineView::Item &item = m_layout->view.items[size_t(box->item())];
    if (item.isGroup) {
        setGroupCollapsed(item.index, false);
        return;
    }
    setCurrentNode(item.index, true);
}

void GraphView::onBoxDoubleClicked(GraphBoxItem *box) {
    const OutlineView::Item &item = m_layout->view.items[size_t(box->item())];
    if (item.isGroup || !m_report) return;
    const int layer = layerOfNode(item.index);
    if (layer >= 0) emit toggleRequested(layer);
}

void GraphView::onBoxContextMenu(GraphBoxItem *box, const QPoint &globalPosition) {
    const OutlineView::Item &item = m_layout->view.items[size_t(box->item())];
    if (item.isGroup || !m_report) return;
    setCurrentNode(item.index, true);
    const int layer = layerOfNode(item.index);
    if (layer >= 0) emit layerMenuRequested(layer, globalPosition);
}

void GraphView::onClusterClicked(int group) {
    setGroupCollapsed(group, true);
}

void GraphView::setGroupCollapsed(int group, bool collapsed) {
    if (group < 0 || group >= int(m_outline.groups().size())) return;
    if (collapsed == m_collapsed.contains(group)) return;
    if (collapsed) {
        m_collapsed.insert(group);
        // The selection inside a closed group moves to nothing visible; keep it, drawn on the
        // group.
    } else {
        m_collapsed.remove(group);
    }
    m_focusGroup = group;
    requestLayout();
}

void GraphView::expandAll() {
    if (m_collapsed.isEmpty()) return;
    m_collapsed.clear();
    requestLayout();
}

void GraphView::collapseToDefault() {
    m_collapsed = m_outline.defaultCollapsed();
    requestLayout();
}

}  // namespace ql::ui
