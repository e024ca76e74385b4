#pragma once
// New Analysis / Quantize in App / Evaluation Data: one form for everything an analysis needs:
// the float model, the quantized side (a model file, or in-app quantization with calibration
// inputs and the quantizer options), the evaluation inputs (files or a folder of .npy/.pb with
// optional labels, or seeded random inputs of the model's input shape), batch and kernels.

#include <QDialog>
#include <QStringList>

#include "analysis_setup.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QRadioButton;
class QSpinBox;
class QGroupBox;

class AnalysisSetupDialog : public QDialog {
    Q_OBJECT
public:
    enum class Focus { Everything, QuantizeInApp, EvaluationData };

    explicit AnalysisSetupDialog(const AnalysisSetup &setup, Focus focus = Focus::Everything,
                                 QWidget *parent = nullptr);

    AnalysisSetup setup() const;

    // For tests: the editors.
    QLineEdit *floatModelEdit() const { return m_floatModel; }
    QLineEdit *quantModelEdit() const { return m_quantModel; }
    QRadioButton *quantizeInAppButton() const { return m_inApp; }
    QRadioButton *randomInputsButton() const { return m_random; }
    QLineEdit *dataEdit() const { return m_data; }
    QCheckBox *crossLayerEqualizationBox() const { return m_cle; }
    QCheckBox *smoothQuantBox() const { return m_smoothQuant; }
    QCheckBox *adaRoundBox() const { return m_adaRound; }
    QCheckBox *biasCorrectionBox() const { return m_biasCorrection; }
    QComboBox *preprocessEdit() const { return m_preprocess; }

private:
    QWidget *pathRow(QLineEdit *edit, const QString &filter, bool multiple, bool folder);
    void updateEnabled();
    void accept() override;

    QLineEdit *m_floatModel;
    QRadioButton *m_fromFile;
    QRadioButton *m_inApp;
    QLineEdit *m_quantModel;
    QLineEdit *m_calibration;
    QComboBox *m_method;
    QDoubleSpinBox *m_percentile;
    QSpinBox *m_calibrationBatch;
    QCheckBox *m_perTensor;
    QCheckBox *m_symmetric;
    QCheckBox *m_reduceRange;
    QCheckBox *m_foldBn;
    QCheckBox *m_cle;
    QCheckBox *m_smoothQuant;
    QCheckBox *m_adaRound, *m_biasCorrection;
    QStringList m_remedies;  // as the setup had them: their order and SmoothQuant's α are kept
    QGroupBox *m_quantizerBox;
    QRadioButton *m_files;
    QRadioButton *m_random;
    QLineEdit *m_data;
    QLineEdit *m_labels;
    QComboBox *m_preprocess;
    QSpinBox *m_randomCount;
    QSpinBox *m_randomSeed;
    QSpinBox *m_batch;
    QComboBox *m_kernels;
};
