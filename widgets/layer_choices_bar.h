#pragma once
// The layer inspector's strip of per-layer choices: keep the layer in fp32, quantize it with 16
// bits, round its weights adaptively (AdaRound), correct its bias, each a check box that asks the
// analysis for the change (undoable there), and below them what the remedies did to this layer (the
// session's notes). The boxes show what the user asked for; the notes, what the report on screen
// measured.

#include <QWidget>

#include <set>
#include <string>

#include "analysis/session/layer_remedies.h"
#include "analysis/suite/numeric_suite.h"

class QCheckBox;
class QLabel;

namespace ql::ui {

class LayerChoicesBar : public QWidget {
    Q_OBJECT
public:
    explicit LayerChoicesBar(QWidget *parent = nullptr);

    // The layer shown (nullptr: none; the bar hides). `row` must outlive the next call.
    void setRow(int index, const analysis::LayerReport *row);
    // What the user asked for, and whether remedies can apply (in-app quantization).
    void setChoices(const std::set<std::string> &fp32, const analysis::LayerRemedies &remedies,
                    bool remediesAvailable);

    QCheckBox *fp32Box() const { return m_fp32; }
    QCheckBox *remedyBox(analysis::LayerRemedy remedy) const;
    QLabel *notesLabel() const { return m_notes; }

signals:
    void fp32Toggled(int layer, bool fp32);
    void remedyToggled(int layer, ql::analysis::LayerRemedy remedy, bool on);

private:
    void refresh();

    int m_index = -1;
    const analysis::LayerReport *m_row = nullptr;
    std::set<std::string> m_fp32Layers;
    analysis::LayerRemedies m_remedies;
    bool m_available = false;
    QCheckBox *m_fp32, *m_adaRound, *m_bias, *m_int16;
    QLabel *m_notes;
};

}  // namespace ql::ui
