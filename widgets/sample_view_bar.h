#pragma once
// The bar over the analysis while it shows one evaluation sample's own figures (a tile of the
// worst-samples strip was clicked): which sample, what the models made of it, and the way back
// to all samples.

#include <QWidget>

#include <optional>

#include "analysis/suite/worst_samples.h"

class QLabel;
class QPushButton;

namespace ql::ui {

struct SampleStripData;

class SampleViewBar : public QWidget {
    Q_OBJECT
public:
    explicit SampleViewBar(QWidget *parent = nullptr);

    // Shows the bar for sample `index`, described from the strip's data when it lists it.
    void showSample(int64_t index, const SampleStripData *strip);
    // "Analysing sample #17…" while its suite runs.
    void showPending(int64_t index);
    QString text() const;
    QPushButton *backButton() const { return m_back; }

signals:
    void backRequested();

private:
    QLabel *m_text;
    QPushButton *m_back;
};

}  // namespace ql::ui
