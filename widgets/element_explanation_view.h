#pragma once
// The "explain one element" box of the layer inspector: which output element (coordinates typed
// in, or the worst one of the first sample), then two monospace columns side by side: the
// integer arithmetic the quantized layer did (inputs, zero points, int32 accumulation,
// requantization multiplier, rounding, zero point, clamping, dequantized value) and the float
// model's formula with its value and the difference.

#include <QString>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/explain/element_explanation.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace ql::ui {

// The two columns as text (shown in the view; also used by tests and exports).
QString integerColumnText(const analysis::ElementExplanation &e);
QString floatColumnText(const analysis::ElementExplanation &e);
// "0, 5, 12, 7"
QString formatElement(const std::vector<int64_t> &element);
// Parses "0, 5, 12, 7" or "0 5 12 7"; nullopt on anything else.
std::optional<std::vector<int64_t>> parseElement(const QString &text);

class ElementExplanationView : public QWidget {
    Q_OBJECT
public:
    explicit ElementExplanationView(QWidget *parent = nullptr);

    void setExplanation(const std::optional<analysis::ElementExplanation> &explanation,
                        const QString &why = {});
    void clear(const QString &message = {});

    QLineEdit *elementEdit() const { return m_edit; }
    QPlainTextEdit *integerText() const { return m_integer; }
    QPlainTextEdit *floatText() const { return m_float; }
    QLabel *verdict() const { return m_verdict; }

signals:
    // The user asked for an element (empty: the worst element of the first sample).
    void elementRequested(const std::vector<int64_t> &element);

private:
    void submit();

    QLineEdit *m_edit;
    QPushButton *m_explain, *m_worst;
    QLabel *m_verdict;
    QPlainTextEdit *m_integer, *m_float;
};

}  // namespace ql::ui
