#include "layer_choices_bar.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "layer_remedy_text.h"

namespace ql::ui {

LayerChoicesBar::LayerChoicesBar(QWidget *parent)
    : QWidget(parent),
      m_fp32(new QCheckBox(tr("Keep in fp32"), this)),
      m_adaRound(new QCheckBox(layerRemedyShortName(analysis::LayerRemedy::AdaRound), this)),
      m_bias(new QCheckBox(tr("Bias correction"), this)),
      m_int16(new QCheckBox(tr("16 bits"), this)),
      m_notes(new QLabel(this)) {
    m_fp32->setObjectName(QStringLiteral("inspectorFp32Box"));
    m_adaRound->setObjectName(QStringLiteral("inspectorAdaRoundBox"));
    m_bias->setObjectName(QStringLiteral("inspectorBiasCorrectionBox"));
    m_int16->setObjectName(QStringLiteral("inspectorSixteenBitBox"));
    m_notes->setObjectName(QStringLiteral("inspectorRemedyNotes"));
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->setForegroundRole(QPalette::PlaceholderText);
    auto *boxes = new QHBoxLayout;
    boxes->setContentsMargins(0, 0, 0, 0);
    boxes->addWidget(m_fp32);
    boxes->addWidget(m_int16);
    boxes->addWidget(m_adaRound);
    boxes->addWidget(m_bias);
    boxes->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(boxes);
    layout->addWidget(m_notes);

    connect(m_fp32, &QCheckBox::toggled, this, [this](bool on) {
        if (m_index >= 0) emit fp32Toggled(m_index, on);
    });
    for (analysis::LayerRemedy remedy : analysis::kLayerRemedies)
        connect(remedyBox(remedy), &QCheckBox::toggled, this, [this, remedy](bool on) {
            if (m_index >= 0) emit remedyToggled(m_index, remedy, on);
        });
    setRow(-1, nullptr);
}

QCheckBox *LayerChoicesBar::remedyBox(analysis::LayerRemedy remedy) const {
    switch (remedy) {
        case analysis::LayerRemedy::AdaRound:
            return m_adaRound;
        case analysis::LayerRemedy::BiasCorrection:
            return m_bias;
        case analysis::LayerRemedy::SixteenBit:
            break;
    }
    return m_int16;
}

void LayerChoicesBar::setRow(int index, const analysis::LayerReport *row) {
    m_index = row ? index : -1;
    m_row = row;
    refresh();
}

void LayerChoicesBar::setChoices(const std::set<std::string> &fp32,
                                 const analysis::LayerRemedies &remedies, bool remediesAvailable) {
    m_fp32Layers = fp32;
    m_remedies = remedies;
    m_available = remediesAvailable;
    refresh();
}

void LayerChoicesBar::refresh() {
    setVisible(m_row != nullptr);
    if (!m_row) return;
    const QSignalBlocker blockFp32(m_fp32), blockAda(m_adaRound), blockBias(m_bias),
        blockInt16(m_int16);
    const bool askedFp32 = m_fp32Layers.count(m_row->name) != 0;
    m_fp32->setChecked(askedFp32);
    // A layer the quantized model itself runs in fp32 has nothing to toggle (an int8 or 16-bit
    // one has).
    m_fp32->setEnabled(askedFp32 || m_row->precision != "fp32" || m_row->fp32Requested);
    QStringList notes;
    for (analysis::LayerRemedy remedy : analysis::kLayerRemedies) {
        QCheckBox *box = remedyBox(remedy);
        const bool asked = m_remedies.has(remedy, m_row->name);
        box->setChecked(asked);
        const QString unavailable = layerRemedyUnavailable(*m_row, remedy, m_available);
        box->setEnabled(unavailable.isEmpty() || asked);
        box->setToolTip(unavailable.isEmpty() ? layerRemedyExplanation(remedy) : unavailable);
    }
    // The session's notes on the remedies (English figures, as in the report).
    for (const std::string &note : m_row->notes)
        if (note.rfind("AdaRound", 0) == 0 || note.rfind("bias correction", 0) == 0 ||
            note.rfind("16 bits", 0) == 0)
            notes << QString::fromStdString(note);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    m_notes->setVisible(!notes.isEmpty());
}

}  // namespace ql::ui
