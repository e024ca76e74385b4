#include "worst_sample_strip.h"

#include <QFutureWatcher>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPromise>
#include <QStyledItemDelegate>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <exception>

#include "display_format.h"
#include "sample_thumbnail.h"
#include "sqnr_colours.h"
#include "worker_pool.h"

namespace ql::ui {
namespace {

using analysis::WorstSample;

// What a tile shows, as item data: the strip composes the (translated) texts, the delegate only
// lays them out. The caption "#12 · 3.4 dB" is the display role (accessibility, keyboard search).
enum Role {
    SampleRole = Qt::UserRole,  // qint64 evaluation sample
    StateRole,                  // WorstSampleStrip::Thumbnail
    ThumbnailRole,              // QImage
    PlaceholderRole,            // text in the placeholder box
    // The predictions line "float: <class> → int8: <class>" in pieces, so the int8 class can
    // be coloured and each class elided on its own; empty when not a classifier.
    BeforeFloatRole,
    FloatClassRole,
    BetweenRole,
    QuantClassRole,
    AfterQuantRole,
    FlippedRole,  // bool
    LabelRole,    // "label: coat" or empty
    ViewedRole,   // bool: the sample being viewed
};

constexpr int kPad = 6;         // tile edge to content
constexpr int kGap = 4;         // thumbnail to text
constexpr int kLines = 3;       // caption, predictions, label
constexpr int kTextChars = 36;  // "float: 6 Shirt → int8: 2 Pullover" fits before eliding

QSize tileSize(const QFontMetrics &metrics) {
    const int width =
        std::max(WorstSampleStrip::kThumbnailSize, metrics.averageCharWidth() * kTextChars);
    return {width + 2 * kPad,
            kPad + WorstSampleStrip::kThumbnailSize + kGap + kLines * metrics.height() + kPad};
}

QString text(const QModelIndex &index, Role role) {
    return index.data(role).toString();
}

// The thumbnail, centred in its box at its own size, or the placeholder box.
void paintThumbnail(QPainter *painter, const QRect &box, const QModelIndex &index,
                    const QPalette &palette) {
    const auto image = qvariant_cast<QImage>(index.data(ThumbnailRole));
    if (!image.isNull()) {
        const QSizeF size = image.deviceIndependentSize();
        QRectF target(QPointF(0, 0), size);
        target.moveCenter(QRectF(box).center());
        painter->drawImage(target, image);
        return;
    }
    painter->setPen(QPen(palette.color(QPalette::Mid), 1));
    painter->setBrush(noFigureFill(palette));
    painter->drawRect(QRectF(box).adjusted(0.5, 0.5, -0.5, -0.5));
    painter->setPen(palette.color(QPalette::PlaceholderText));
    painter->drawText(box.adjusted(4, 4, -4, -4), Qt::AlignCenter | Qt::TextWordWrap,
                      text(index, PlaceholderRole));
}

// "float: coat → int8: shirt", centred, with the int8 class coloured on a flip. When too long,
// each class name gets half of what is left, the shorter one lending the other what it does not
// need.
void paintPredictions(QPainter *painter, const QRect &line, const QModelIndex &index,
                      const QPalette &palette) {
    const QFontMetrics plain(painter->font());
    QFont boldFont = painter->font();
    boldFont.setBold(true);
    const bool flipped = index.data(FlippedRole).toBool();
    const QFontMetrics quantMetrics = flipped ? QFontMetrics(boldFont) : plain;
    const QString before = text(index, BeforeFloatRole), between = text(index, BetweenRole),
                  after = text(index, AfterQuantRole);
    QString floatClass = text(index, FloatClassRole), quantClass = text(index, QuantClassRole);
    const int fixed = plain.horizontalAdvance(before + between + after);
    const int room = std::max(0, line.width() - fixed);
    const int floatWidth = plain.horizontalAdvance(floatClass);
    const int quantWidth = quantMetrics.horizontalAdvance(quantClass);
    if (floatWidth + quantWidth > room) {
        floatClass =
            plain.elidedText(floatClass, Qt::ElideRight, std::max(room / 2, room - quantWidth));
        quantClass = quantMetrics.elidedText(quantClass, Qt::ElideRight,
                                             room - plain.horizontalAdvance(floatClass));
    }
    const int width = plain.horizontalAdvance(before + floatClass + between + after) +
                      quantMetrics.horizontalAdvance(quantClass);
    int x = line.left() + std::max(0, (line.width() - width) / 2);
    auto draw = [&](const QString &part, const QFont &font, const QColor &colour) {
        painter->setFont(font);
        painter->setPen(colour);
        painter->drawText(QRect(x, line.top(), line.right() - x + 1, line.height()),
                          Qt::AlignLeft | Qt::AlignVCenter, part);
        x += QFontMetrics(font).horizontalAdvance(part);
    };
    const QFont font = painter->font();
    const QColor textColour = palette.color(QPalette::Text);
    draw(before + floatClass + between, font, textColour);
    draw(quantClass, flipped ? boldFont : font,
         flipped ? WorstSampleStrip::flipColour(palette) : textColour);
    draw(after, font, textColour);
    painter->setFont(font);
}

class TileDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const override {
        return tileSize(option.fontMetrics);
    }

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override {
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, false);
        const QPalette &palette = option.palette;
        paintBackground(painter, option, index);
        const QRect tile = option.rect;
        const int size = WorstSampleStrip::kThumbnailSize;
        const QRect box(tile.center().x() - size / 2, tile.top() + kPad, size, size);
        paintThumbnail(painter, box, index, palette);
        const int lineHeight = option.fontMetrics.height();
        QRect line(tile.left() + kPad, box.bottom() + 1 + kGap, tile.width() - 2 * kPad,
                   lineHeight);
        painter->setFont(option.font);
        painter->setPen(palette.color(QPalette::Text));
        painter->drawText(line, Qt::AlignHCenter | Qt::AlignVCenter,
                          option.fontMetrics.elidedText(index.data(Qt::DisplayRole).toString(),
                                                        Qt::ElideRight, line.width()));
        line.translate(0, lineHeight);
        if (!text(index, QuantClassRole).isEmpty()) paintPredictions(painter, line, index, palette);
        line.translate(0, lineHeight);
        painter->setPen(palette.color(QPalette::PlaceholderText));
        painter->drawText(
            line, Qt::AlignHCenter | Qt::AlignVCenter,
            option.fontMetrics.elidedText(text(index, LabelRole), Qt::ElideRight, line.width()));
        painter->restore();
    }

private:
    // Selection and hover as translucent highlight, so the texts keep the palette's Text colour
    // (and a flip's red stays red); the viewed sample framed in the highlight colour.
    static void paintBackground(QPainter *painter, const QStyleOptionViewItem &option,
                                const QModelIndex &index) {
        QColor highlight = option.palette.color(QPalette::Highlight);
        const QRect tile = option.rect.adjusted(1, 1, -1, -1);
        if (option.state & (QStyle::State_Selected | QStyle::State_MouseOver)) {
            QColor fill = highlight;
            fill.setAlpha(option.state & QStyle::State_Selected ? 70 : 30);
            painter->fillRect(tile, fill);
        }
        if (index.data(ViewedRole).toBool()) {
            painter->setPen(QPen(highlight, 2));
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(tile.adjusted(1, 1, -1, -1));
        }
    }
};

struct ThumbnailSource {
    QString file;                  // image data
    std::optional<Tensor> tensor;  // tensor data
};

QImage makeThumbnail(const ThumbnailSource &source, int pixels) {
    try {
        if (!source.file.isEmpty()) return imageFileThumbnail(source.file, pixels);
        if (source.tensor) return tensorHeatMap(*source.tensor, pixels);
    } catch (const std::exception &) {
        // A tensor of a type without float values: no picture, the placeholder says so.
    }
    return {};
}

}  // namespace

WorstSampleStrip::WorstSampleStrip(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("worstSampleStrip"));
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("worstSampleTitle"));
    m_title->setToolTip(
        tr("The evaluation samples with the lowest output SQNR, and every sample "
           "whose top-1 class differs between the float and int8 models"));
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("worstSampleList"));
    m_list->setViewMode(QListView::ListMode);
    m_list->setFlow(QListView::LeftToRight);
    m_list->setWrapping(false);
    m_list->setUniformItemSizes(true);
    m_list->setSpacing(2);
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setDragEnabled(false);
    m_list->setMouseTracking(true);
    m_list->viewport()->setAttribute(Qt::WA_Hover);
    m_list->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_list->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_list->setItemDelegate(new TileDelegate(m_list));
    m_list->installEventFilter(this);
    connect(m_list, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        emit sampleActivated(item->data(SampleRole).toLongLong());
    });
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addWidget(m_list);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    updateTitle({});
    updateHeight();
}

WorstSampleStrip::~WorstSampleStrip() {
    // The job owns copies of what it reads, but the worker pool is never joined: cancelled, it
    // stops after the thumbnail in hand, and waiting for that keeps it from outliving the app.
    if (!m_watcher) return;
    m_watcher->cancel();
    m_watcher->waitForFinished();
}

void WorstSampleStrip::setData(SampleStripData data) {
    stopThumbnails();
    m_list->clear();
    m_classes = std::move(data.classes);
    for (const WorstSample &sample : data.samples) addTile(sample, data);
    updateTitle(data);
    setCurrentSample(m_viewed);
    startThumbnails(data);
}

void WorstSampleStrip::clear() {
    setData({});
}

int WorstSampleStrip::count() const {
    return m_list->count();
}

void WorstSampleStrip::setCurrentSample(std::optional<int64_t> index) {
    m_viewed = index;
    for (int tile = 0; tile < count(); ++tile) {
        QListWidgetItem *item = m_list->item(tile);
        const bool viewed = index && sampleAt(tile) == *index;
        item->setData(ViewedRole, viewed);
        if (!viewed) continue;
        m_list->setCurrentItem(item);
        scrollToViewed();
    }
}

int64_t WorstSampleStrip::sampleAt(int tile) const {
    return m_list->item(tile)->data(SampleRole).toLongLong();
}

WorstSampleStrip::Thumbnail WorstSampleStrip::thumbnailState(int tile) const {
    return Thumbnail(m_list->item(tile)->data(StateRole).toInt());
}

QImage WorstSampleStrip::thumbnailAt(int tile) const {
    return qvariant_cast<QImage>(m_list->item(tile)->data(ThumbnailRole));
}

bool WorstSampleStrip::isLoading() const {
    for (int tile = 0; tile < count(); ++tile)
        if (thumbnailState(tile) == Thumbnail::Loading) return true;
    return false;
}

QString WorstSampleStrip::title() const {
    return m_title->text();
}

QAbstractItemView *WorstSampleStrip::view() const {
    return m_list;
}

QColor WorstSampleStrip::flipColour(const QPalette &palette) {
    // On a dark base the chart's red has too little contrast for text (about 3:1).
    if (palette.color(QPalette::Base).lightness() >= 110) return kUnderColor;
    const QColor white(Qt::white);
    auto mix = [&white](int c, int w) { return c + (w - c) * 45 / 100; };
    return QColor(mix(kUnderColor.red(), white.red()), mix(kUnderColor.green(), white.green()),
                  mix(kUnderColor.blue(), white.blue()));
}

bool WorstSampleStrip::eventFilter(QObject *watched, QEvent *event) {
    // Enter activates the tile with the keyboard focus (the list itself only emits activated,
    // which a double-click also emits after its first click already did).
    if (watched == m_list && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent *>(event)->key();
        if ((key == Qt::Key_Return || key == Qt::Key_Enter) && m_list->currentItem()) {
            emit sampleActivated(m_list->currentItem()->data(SampleRole).toLongLong());
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void WorstSampleStrip::showEvent(QShowEvent *event) {
    QWidget::showEvent(event);
    scrollToViewed();
}

void WorstSampleStrip::changeEvent(QEvent *event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) updateHeight();
}

void WorstSampleStrip::scrollToViewed() {
    // Hidden, the view's width is arbitrary: scrolling then would leave the first tiles off
    // screen for no reason; showEvent scrolls instead.
    if (!isVisible()) return;
    for (int tile = 0; tile < count(); ++tile)
        if (m_list->item(tile)->data(ViewedRole).toBool()) m_list->scrollToItem(m_list->item(tile));
}

void WorstSampleStrip::addTile(const WorstSample &sample, const SampleStripData &data) {
    auto *item = new QListWidgetItem(m_list);
    item->setData(SampleRole, qint64(sample.index));
    item->setData(StateRole, int(Thumbnail::Loading));
    item->setData(PlaceholderRole, QStringLiteral("…"));
    item->setData(Qt::DisplayRole,
                  std::isnan(sample.sqnrDb)
                      ? tr("#%1 · n/a").arg(sample.index)
                      : tr("#%1 · %2 dB").arg(sample.index).arg(formatDb(sample.sqnrDb)));
    QStringList tip;
    const auto index = size_t(sample.index);
    if (!data.files.empty() && index < data.files.size())
        tip << QString::fromStdString(data.files[index]);
    if (sample.label) {
        item->setData(LabelRole, tr("label: %1").arg(className(*sample.label)));
        tip << tr("Label: %1").arg(classDescription(*sample.label));
    }
    if (sample.floatTop1 && sample.quantTop1) {
        //: The predictions line of a tile; %1 float class, %2 int8 class: keep %1 before %2.
        QString line = tr("float: %1 → int8: %2");
        qsizetype first = line.indexOf(QLatin1String("%1")),
                  second = line.indexOf(QLatin1String("%2"));
        if (first < 0 || second < first) {  // a translation that cannot be split
            line = QStringLiteral("float: %1 → int8: %2");
            first = line.indexOf(QLatin1String("%1"));
            second = line.indexOf(QLatin1String("%2"));
        }
        item->setData(BeforeFloatRole, line.left(first));
        item->setData(FloatClassRole, className(*sample.floatTop1));
        item->setData(BetweenRole, line.mid(first + 2, second - first - 2));
        item->setData(QuantClassRole, className(*sample.quantTop1));
        item->setData(AfterQuantRole, line.mid(second + 2));
        item->setData(FlippedRole, sample.flipped);
        tip << tr("Float top-1: %1").arg(classDescription(*sample.floatTop1))
            << (sample.flipped ? tr("Int8 top-1: %1 (changed)") : tr("Int8 top-1: %1"))
                   .arg(classDescription(*sample.quantTop1));
    }
    tip << (std::isnan(sample.sqnrDb) ? tr("Output SQNR: n/a")
                                      : tr("Output SQNR: %1 dB").arg(formatDb(sample.sqnrDb)));
    tip << tr("Click or press Enter to view sample #%1").arg(sample.index);
    item->setToolTip(tip.join(QLatin1Char('\n')));
}

void WorstSampleStrip::startThumbnails(const SampleStripData &data) {
    std::vector<ThumbnailSource> sources;
    for (const WorstSample &sample : data.samples) {
        ThumbnailSource source;
        const auto index = size_t(sample.index);
        if (!data.files.empty()) {
            if (index < data.files.size()) source.file = QString::fromStdString(data.files[index]);
        } else if (auto it = data.tensors.find(sample.index); it != data.tensors.end()) {
            source.tensor = it->second;  // shares the storage, which nobody writes any more
        }
        sources.push_back(std::move(source));
    }
    if (sources.empty()) return;
    const int pixels = int(std::lround(kThumbnailSize * devicePixelRatioF()));
    auto *watcher = new QFutureWatcher<QImage>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcher<QImage>::resultsReadyAt, this,
            [this, watcher](int begin, int end) {
                for (int tile = begin; tile < end; ++tile)
                    setThumbnail(tile, watcher->resultAt(tile));
            });
    connect(watcher, &QFutureWatcher<QImage>::finished, this, [this] {
        // Tiles without a result (none expected) must not stay "loading".
        for (int tile = 0; tile < count(); ++tile)
            if (thumbnailState(tile) == Thumbnail::Loading) setThumbnail(tile, QImage());
    });
    // Our worker pool, not Qt's global one, which painting uses (worker_pool.h).
    watcher->setFuture(QtConcurrent::run(
        workerPool(), [sources = std::move(sources), pixels](QPromise<QImage> &promise) {
            lowerWorkerThreadPriority();
            for (size_t i = 0; i < sources.size() && !promise.isCanceled(); ++i)
                promise.addResult(makeThumbnail(sources[i], pixels), int(i));
        }));
}

void WorstSampleStrip::stopThumbnails() {
    if (!m_watcher) return;
    // Disconnected first: results of the old data must never reach the new tiles.
    m_watcher->disconnect(this);
    m_watcher->cancel();
    m_watcher->deleteLater();
    m_watcher = nullptr;
}

void WorstSampleStrip::setThumbnail(int tile, QImage image) {
    if (tile < 0 || tile >= count()) return;
    QListWidgetItem *item = m_list->item(tile);
    if (!image.isNull()) image.setDevicePixelRatio(devicePixelRatioF());
    item->setData(StateRole, int(image.isNull() ? Thumbnail::Unavailable : Thumbnail::Ready));
    item->setData(ThumbnailRole, QVariant::fromValue(image));
    item->setData(PlaceholderRole, image.isNull() ? tr("no picture") : QString());
}

void WorstSampleStrip::updateTitle(const SampleStripData &data) {
    if (data.samples.empty()) {
        m_title->setText(tr("Worst samples"));
        return;
    }
    const auto lowest = std::min<size_t>(size_t(std::max(data.lowest, 0)), data.samples.size());
    const auto flips = std::count_if(data.samples.begin(), data.samples.end(),
                                     [](const WorstSample &s) { return s.flipped; });
    // Explicit singular: there is no English .qm to resolve %n plurals.
    const QString flipText = flips == 1 ? tr("1 flip") : tr("%1 flips").arg(flips);
    m_title->setText(tr("Worst samples (%1 lowest SQNR, %2)").arg(lowest).arg(flipText));
}

void WorstSampleStrip::updateHeight() {
    // One row of tiles and the horizontal scroll bar's room, whether it shows or not.
    const int frame = 2 * m_list->frameWidth();
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_list);
    m_list->setFixedHeight(tileSize(m_list->fontMetrics()).height() + 2 * m_list->spacing() +
                           frame + bar);
}

QString WorstSampleStrip::className(int64_t id) const {
    return QString::fromStdString(ui::className(id, m_classes));
}

QString WorstSampleStrip::classDescription(int64_t id) const {
    const QString name = className(id);
    return name == QString::number(id) ? name : tr("%1 (class %2)").arg(name).arg(id);
}

}  // namespace ql::ui
