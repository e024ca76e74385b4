#pragma once
// The graph view (View > Graph): the float model laid out top to bottom by Graphviz, one box per
// node filled by its SQNR on the analysis views' colour scale, fp32 layers marked, diagnosis
// findings as badges. Groups from the exporters' name scopes collapse on large models and open
// on a click. Layout runs off the GUI thread and is cached per set of collapsed groups; a new
// report or threshold only repaints.
//
// Layers are numbered as the rest of the window numbers them: the report's layer index when a
// report is set, else the node's index in the graph (the model page's row).

#include <QHash>
#include <QSet>
#include <QWidget>

#include <memory>
#include <vector>

#include "analysis/suite/diagnosis.h"
#include "analysis_report.h"
#include "graph_layout.h"
#include "graph_outline.h"
#include "graph_scene_items.h"

class QComboBox;
class QCheckBox;
class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QLineEdit;
class QProgressBar;
template <typename T>
class QFutureWatcher;

namespace ql::ui {

class GraphCanvas;
class GraphMinimap;
class SqnrFillLegend;

class GraphView : public QWidget {
    Q_OBJECT
public:
    enum class Colouring { Cumulative, Isolated, Weight };

    explicit GraphView(QWidget *parent = nullptr);
    ~GraphView() override;

    // A new model (nullptr: none): a new outline and layout.
    void setGraph(std::shared_ptr<const Graph> graph);
    const std::shared_ptr<const Graph> &graph() const { return m_graph; }
    // The analysis over the graph (nullptr: none): fills, marks and layer numbers change, the
    // layout does not.
    void setReport(ReportPtr report);
    void setFindings(std::vector<analysis::Finding> findings);
    void setThresholdDb(double thresholdDb);
    void setColouring(Colouring colouring);
    void setShowQdq(bool show);
    void setShowShapeComputations(bool show);

    int currentLayer() const;
    // The scene shows the current graph's layout (false while one is computed, or wanted but
    // the view was not shown yet: layout waits until it is).
    bool isLaidOut() const { return !m_layingOut && !m_layoutWanted; }
    double lastLayoutMilliseconds() const { return m_lastLayoutMs; }
    const GraphOutline &outline() const { return m_outline; }
    const QSet<int> &collapsedGroups() const { return m_collapsed; }
    void setGroupCollapsed(int group, bool collapsed);
    void expandAll();
    void collapseToDefault();

    QGraphicsView *canvas() const;
    QLineEdit *searchEdit() const { return m_search; }
    // The box drawing a layer or a group; nullptr when not on the scene (inside a collapsed
    // group, or not laid out yet).
    GraphBoxItem *boxOfLayer(int layer) const;
    GraphBoxItem *boxOfGroup(int group) const;
    // The box an outline node is drawn in: its own, or its collapsed group's.
    GraphBoxItem *boxOfNode(int node) const;

public slots:
    // Selects a layer (-1: none), opening the groups around it.
    void selectLayer(int layer);
    void fitToView();
    // The next node whose name or op type holds the search text, after the current one.
    void findNext();

signals:
    void currentLayerChanged(int layer);
    // A double-click on a layer's box while a report is set.
    void toggleRequested(int layer);
    // A right-click on a layer's box while a report is set (the layer is made current first):
    // the owner shows the layer's menu there.
    void layerMenuRequested(int layer, const QPoint &globalPosition);
    void layoutFinished();

protected:
    void showEvent(QShowEvent *event) override;

private:
    friend class GraphCanvas;
    struct Layout;

    QWidget *makeToolBar();
    void rebuildOutline();
    void keepCurrentAcrossRebuild();  // after the options changed the outline
    void rebuildLayerMap();
    void requestLayout();
    void applyLayout(const std::shared_ptr<const Layout> &layout);
    void refreshLooks();
    void updateCurrentBox();
    void updateMatches();
    void showInitialView();
    void positionOverlays();  // the legend top left, the minimap bottom right
    QString layoutKey(const QSet<int> &collapsed) const;
    // What a box shows and says, for an item of the outline's current view.
    BoxLook lookOf(const OutlineView::Item &item) const;
    QString toolTipOf(const OutlineView::Item &item) const;
    std::optional<double> figureOfLayer(int layer) const;
    int layerOfNode(int node) const;
    // From the canvas: clicks on boxes and group titles.
    void onBoxClicked(GraphBoxItem *box);
    void onBoxDoubleClicked(GraphBoxItem *box);
    void onBoxContextMenu(GraphBoxItem *box, const QPoint &globalPosition);
    void onClusterClicked(int group);
    void setCurrentNode(int node, bool notify);

    std::shared_ptr<const Graph> m_graph;
    ReportPtr m_report;
    std::vector<analysis::Finding> m_findings;
    double m_thresholdDb = kDefaultThresholdDb;
    Colouring m_colouring = Colouring::Cumulative;
    OutlineOptions m_options;

    GraphOutline m_outline;
    QSet<int> m_collapsed;
    std::vector<int> m_layerOfNode;                // per outline node
    std::vector<std::vector<int>> m_nodesOfLayer;  // per layer
    int m_currentNode = -1;                        // outline node
    int m_lastFound = -1;                          // outline node of the last search hit

    std::shared_ptr<const Layout> m_layout;  // on the scene
    QHash<QString, std::shared_ptr<const Layout>> m_layoutCache;
    QFutureWatcher<GraphLayoutResult> *m_watcher;
    std::shared_ptr<const Layout> m_pending;  // the layout being computed (result not in)
    int m_generation = 0;
    bool m_layingOut = false;
    bool m_layoutWanted = false;
    bool m_firstLayout = true;
    bool m_userMoved = false;  // zoomed, panned or clicked since the first layout
    double m_lastLayoutMs = 0;
    int m_focusGroup = -1;  // the group just opened or closed: the view centres on it

    GraphCanvas *m_canvas;
    QGraphicsScene *m_scene;
    GraphMinimap *m_minimap;
    SqnrFillLegend *m_legend;
    std::vector<GraphBoxItem *> m_boxes;  // per OutlineView item of m_layout
    QComboBox *m_colourBox = nullptr;
    QCheckBox *m_qdqBox = nullptr;
    QCheckBox *m_shapeBox = nullptr;
    QLineEdit *m_search = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_busy = nullptr;
};

}  // namespace ql::ui
