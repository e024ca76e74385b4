#pragma once
// Analysis > Calibration Lab: one form for a lab: the float model, the calibration pool, the
// evaluation inputs and optional labels, the range methods (percentile with its percentile), the
// calibration sizes, repeats, how samples are drawn, calibration batch sizes, the seed, the
// quantizer options and per-layer SQNR. Problems show as one line under the form while typing;
// Run stays disabled until there are none (missing files are checked on Run).

#include <QDialog>
#include <QMap>

#include "calibration_lab_settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace ql::ui {

class CalibrationLabDialog : public QDialog {
    Q_OBJECT
public:
    explicit CalibrationLabDialog(const CalibrationLabSettings &settings,
                                  QWidget *parent = nullptr);

    CalibrationLabSettings settings() const;
    void setSettings(const CalibrationLabSettings &settings);
    // The one-line problem shown under the form (empty: none).
    QString validationMessage() const;

    // For tests: the editors.
    QLineEdit *floatModelEdit() const { return m_floatModel; }
    QLineEdit *poolEdit() const { return m_pool; }
    QLineEdit *evaluationEdit() const { return m_evaluation; }
    QLineEdit *labelsEdit() const { return m_labels; }
    QCheckBox *methodBox(const QString &method) const { return m_methods.value(method); }
    QDoubleSpinBox *percentileSpinBox() const { return m_percentile; }
    QLineEdit *sizesEdit() const { return m_sizes; }
    QSpinBox *repeatsSpinBox() const { return m_repeats; }
    QComboBox *selectionCombo() const { return m_selection; }
    QLineEdit *calibrationBatchesEdit() const { return m_batches; }
    QLineEdit *remediesEdit() const { return m_remedies; }
    QPushButton *runButton() const { return m_run; }

public slots:
    void accept() override;

private:
    QWidget *pathRow(QLineEdit *edit, const QString &filter, bool multiple, bool folder);
    void updateState();

    QLineEdit *m_floatModel;
    QLineEdit *m_pool;
    QLineEdit *m_evaluation;
    QLineEdit *m_labels;
    QMap<QString, QCheckBox *> m_methods;
    QDoubleSpinBox *m_percentile;
    QLineEdit *m_sizes;
    QSpinBox *m_repeats;
    QComboBox *m_selection;
    QLineEdit *m_batches, *m_remedies;
    QSpinBox *m_seed;
    QSpinBox *m_evaluationBatch;
    QCheckBox *m_perTensor;
    QCheckBox *m_symmetric;
    QCheckBox *m_reduceRange;
    QCheckBox *m_foldBn;
    QCheckBox *m_layers;
    QLabel *m_planned;
    QLabel *m_problem;
    QPushButton *m_run;
};

}  // namespace ql::ui
