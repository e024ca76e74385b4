#include "sample_view_bar.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

#include "worst_sample_strip.h"

namespace ql::ui {
namespace {

QString classText(int64_t id, const std::vector<std::string> &classes) {
    return QString::fromStdString(ui::className(id, classes));
}

}  // namespace

SampleViewBar::SampleViewBar(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("sampleViewBar"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::ToolTipBase);
    setForegroundRole(QPalette::ToolTipText);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("sampleViewText"));
    m_text->setTextFormat(Qt::PlainText);
    m_text->setWordWrap(true);
    m_back = new QPushButton(tr("Back to All Samples"), this);
    m_back->setObjectName(QStringLiteral("sampleViewBack"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_back);
    connect(m_back, &QPushButton::clicked, this, &SampleViewBar::backRequested);
}

void SampleViewBar::showPending(int64_t index) {
    m_text->setText(tr("Analysing sample #%1 alone…").arg(index));
    show();
}

void SampleViewBar::showSample(int64_t index, const SampleStripData *strip) {
    QStringList parts{tr("Per-layer figures of sample #%1 alone").arg(index)};
    if (strip) {
        if (index < int64_t(strip->files.size()))
            parts << QFileInfo(QString::fromStdString(strip->files[size_t(index)])).fileName();
        for (const analysis::WorstSample &sample : strip->samples) {
            if (sample.index != index) continue;
            if (sample.label) parts << tr("label %1").arg(classText(*sample.label, strip->classes));
            if (sample.floatTop1 && sample.quantTop1)
                parts << tr("float %1, int8 %2")
                             .arg(classText(*sample.floatTop1, strip->classes),
                                  classText(*sample.quantTop1, strip->classes));
        }
    }
    m_text->setText(parts.join(QStringLiteral(" · ")));
    show();
}

QString SampleViewBar::text() const {
    return m_text->text();
}

}  // namespace ql::ui
