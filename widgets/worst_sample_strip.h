#pragma once
// The worst samples (analysis/suite/worst_samples.h) as one short, horizontally scrolling row of tiles:
// a thumbnail (the picture itself for image data, a heat map of the input tensor otherwise), the
// sample's index and output SQNR, for a classifier both predictions with a flip's int8 class in
// the chart's red, and the label when known. Clicking a tile or pressing Enter on it emits
// sampleActivated, so the window can show that sample.
//
// Thumbnails are made off the GUI thread (QtConcurrent) and arrive one by one; a tile shows a
// placeholder box until then, or for good when the picture cannot be read.

#include <QColor>
#include <QImage>
#include <QPalette>
#include <QWidget>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sample_strip_data.h"

class QAbstractItemView;
class QLabel;
class QListWidget;
template <typename T>
class QFutureWatcher;

namespace ql::ui {

class WorstSampleStrip : public QWidget {
    Q_OBJECT
public:
    enum class Thumbnail { Loading, Ready, Unavailable };
    static constexpr int kThumbnailSize = 72;  // logical pixels

    explicit WorstSampleStrip(QWidget *parent = nullptr);
    ~WorstSampleStrip() override;

    // Replaces the tiles; thumbnails are made off the GUI thread, and those of an earlier
    // setData still being made are dropped.
    void setData(SampleStripData data);
    void clear();
    int count() const;
    // The highlighted tile: the sample being viewed (nullopt: none). Kept across setData.
    void setCurrentSample(std::optional<int64_t> index);
    std::optional<int64_t> currentSample() const { return m_viewed; }

    // Per tile, in strip order.
    int64_t sampleAt(int tile) const;
    Thumbnail thumbnailState(int tile) const;
    QImage thumbnailAt(int tile) const;  // null while loading or when unavailable
    bool isLoading() const;              // some thumbnail is still being made
    QString title() const;
    QAbstractItemView *view() const;

    // A flip's int8 class colour: the chart's red, lightened on a dark base to stay readable.
    static QColor flipColour(const QPalette &palette);

signals:
    void sampleActivated(qint64 index);  // click, double-click or Enter on a tile

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void addTile(const analysis::WorstSample &sample, const SampleStripData &data);
    void startThumbnails(const SampleStripData &data);
    void stopThumbnails();
    void setThumbnail(int tile, QImage image);
    void updateTitle(const SampleStripData &data);
    void updateHeight();
    void scrollToViewed();
    QString className(int64_t id) const;         // the name, or the index without names
    QString classDescription(int64_t id) const;  // "coat (class 4)"

    QLabel *m_title = nullptr;
    QListWidget *m_list = nullptr;
    QFutureWatcher<QImage> *m_watcher = nullptr;
    std::vector<std::string> m_classes;
    std::optional<int64_t> m_viewed;
};

}  // namespace ql::ui
