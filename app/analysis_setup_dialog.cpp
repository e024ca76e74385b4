#include "analysis_setup_dialog.h"
#include "path_field.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

#include "quant/image_preprocess.h"

AnalysisSetupDialog::AnalysisSetupDialog(const AnalysisSetup &setup, Focus focus, QWidget *parent)
    : QDialog(parent) {
    setWindowTitle(focus == Focus::QuantizeInApp    ? tr("Quantize in App")
                   : focus == Focus::EvaluationData ? tr("Evaluation Data")
                                                    : tr("New Analysis"));
    const QString onnxFilter = tr("ONNX models (*.onnx);;All files (*)");
    const QString tensorFilter =
        tr("Tensors and images (*.npy *.pb *.png *.jpg *.jpeg *.bmp *.webp);;All files (*)");

    auto *models = new QGroupBox(tr("Models"), this);
    auto *modelForm = new QFormLayout(models);
    m_floatModel = new QLineEdit(setup.floatModel, models);
    m_floatModel->setObjectName(QStringLiteral("floatModelEdit"));
    modelForm->addRow(tr("&Float model:"), pathRow(m_floatModel, onnxFilter, false, false));
    m_fromFile = new QRadioButton(tr("Quantized model &file:"), models);
    m_inApp = new QRadioButton(tr("&Quantize in the app"), models);
    m_quantModel = new QLineEdit(setup.quantModel, models);
    m_quantModel->setObjectName(QStringLiteral("quantModelEdit"));
    modelForm->addRow(m_fromFile, pathRow(m_quantModel, onnxFilter, false, false));
    modelForm->addRow(m_inApp);

    m_quantizerBox = new QGroupBox(tr("In-app quantization"), this);
    auto *quantForm = new QFormLayout(m_quantizerBox);
    m_calibration = new QLineEdit(ql::ui::joinPathField(setup.calibrationPaths), m_quantizerBox);
    m_calibration->setPlaceholderText(tr("the evaluation inputs"));
    quantForm->addRow(tr("&Calibration inputs:"), pathRow(m_calibration, tensorFilter, true, true));
    m_method = new QComboBox(m_quantizerBox);
    for (const char *method : {"minmax", "percentile", "entropy", "mse", "moving_average"})
        m_method->addItem(QString::fromLatin1(method));
    m_method->setCurrentText(setup.quantizer.method);
    quantForm->addRow(tr("Activation &range:"), m_method);
    m_percentile = new QDoubleSpinBox(m_quantizerBox);
    m_percentile->setRange(50.0, 100.0);
    m_percentile->setDecimals(3);
    m_percentile->setValue(setup.quantizer.percentile);
    quantForm->addRow(tr("&Percentile:"), m_percentile);
    m_calibrationBatch = new QSpinBox(m_quantizerBox);
    m_calibrationBatch->setObjectName(QStringLiteral("calibrationBatchSpinBox"));
    m_calibrationBatch->setRange(0, 4096);
    m_calibrationBatch->setSpecialValueText(tr("each file"));
    m_calibrationBatch->setValue(setup.quantizer.calibrationBatch);
    m_calibrationBatch->setToolTip(
        tr("Samples per calibration batch; only the moving average depends on it"));
    quantForm->addRow(tr("Calibration batc&h:"), m_calibrationBatch);
    m_perTensor = new QCheckBox(tr("Weights per &tensor (not per channel)"), m_quantizerBox);
    m_perTensor->setChecked(setup.quantizer.perTensor);
    m_symmetric = new QCheckBox(tr("&Symmetric int8 activations"), m_quantizerBox);
    m_symmetric->setChecked(setup.quantizer.symmetricActivations);
    m_reduceRange = new QCheckBox(tr("Reduce range (&7-bit activations)"), m_quantizerBox);
    m_reduceRange->setChecked(setup.quantizer.reduceRange);
    m_foldBn = new QCheckBox(tr("Fold &BatchNormalization"), m_quantizerBox);
    m_foldBn->setChecked(setup.quantizer.foldBatchNorm);
    m_remedies = setup.quantizer.remedies;
    m_cle = new QCheckBox(tr("Cross-layer &equalization (CLE)"), m_quantizerBox);
    m_cle->setToolTip(
        tr("Balance the channel ranges of Conv pairs before calibrating, for "
           "weights whose channels are far apart (depthwise convolutions)"));
    m_cle->setChecked(m_remedies.contains(QStringLiteral("cle")));
    m_smoothQuant = new QCheckBox(tr("S&moothQuant"), m_quantizerBox);
    m_smoothQuant->setToolTip(
        tr("Move the range of activation outlier channels (transformers "
           "after LayerNorm) into the next weights before calibrating"));
    for (const QString &name : m_remedies)
        if (name.startsWith(QStringLiteral("smoothquant"))) m_smoothQuant->setChecked(true);
    m_adaRound = new QCheckBox(tr("&AdaRound (slower: minutes on large models)"), m_quantizerBox);
    m_adaRound->setToolTip(
        tr("After calibrating, round each weight of the int8 layers up or down as best "
           "reconstructs the layer's output on the calibration inputs, instead of to nearest"));
    m_adaRound->setChecked(m_remedies.contains(QStringLiteral("adaround")));
    m_biasCorrection = new QCheckBox(tr("&Bias correction"), m_quantizerBox);
    m_biasCorrection->setToolTip(
        tr("After calibrating (and AdaRound), subtract each int8 layer's mean output error per "
           "channel, measured on the calibration inputs, from its bias; switch it off per layer "
           "in the layer menu"));
    m_biasCorrection->setChecked(m_remedies.contains(QStringLiteral("bias-correction")));
    for (QCheckBox *box : {m_perTensor, m_symmetric, m_reduceRange, m_foldBn, m_cle, m_smoothQuant,
                           m_adaRound, m_biasCorrection})
        quantForm->addRow(box);

    auto *data = new QGroupBox(tr("Evaluation inputs"), this);
    auto *dataForm = new QFormLayout(data);
    m_files = new QRadioButton(tr("Files or f&older:"), data);
    m_data = new QLineEdit(ql::ui::joinPathField(setup.dataPaths), data);
    m_data->setObjectName(QStringLiteral("dataEdit"));
    m_data->setToolTip(
        tr(".npy or .pb files (one sample or a batch each), images (.png .jpg .bmp .webp; a "
           "folder of class folders gives labels), or folders of them; separate with ';'"));
    dataForm->addRow(m_files, pathRow(m_data, tensorFilter, true, true));
    m_labels = new QLineEdit(setup.labelsPath, data);
    m_labels->setPlaceholderText(tr("optional: class ids (.npy; for images also .txt or .csv)"));
    dataForm->addRow(
        tr("&Labels:"),
        pathRow(m_labels, tr("Labels (*.npy *.txt *.csv);;All files (*)"), false, false));
    m_preprocess = new QComboBox(data);
    m_preprocess->setObjectName(QStringLiteral("preprocessEdit"));
    m_preprocess->setEditable(true);
    m_preprocess->addItems({QString(), QStringLiteral("imagenet"), QStringLiteral("none")});
    m_preprocess->setCurrentText(setup.preprocess);
    m_preprocess->lineEdit()->setPlaceholderText(
        tr("images: default resize and crop to the model's input, scale 1/255"));
    m_preprocess->setToolTip(
        tr("For images, applied in this order: color=rgb|bgr|gray, resize=N|HxW, crop=N|HxW, "
           "scale=F (1/255 accepted), mean=a:b:c, std=a:b:c, layout=nchw|nhwc, "
           "dtype=float32|uint8; or a preset: imagenet, none"));
    dataForm->addRow(tr("&Preprocess:"), m_preprocess);
    m_random = new QRadioButton(tr("&Random inputs of the model's input shape"), data);
    dataForm->addRow(m_random);
    auto *randomRow = new QWidget(data);
    auto *randomLayout = new QHBoxLayout(randomRow);
    randomLayout->setContentsMargins(0, 0, 0, 0);
    m_randomCount = new QSpinBox(randomRow);
    m_randomCount->setRange(1, 100000);
    m_randomCount->setValue(setup.randomCount);
    m_randomCount->setSuffix(tr(" samples"));
    m_randomSeed = new QSpinBox(randomRow);
    m_randomSeed->setRange(0, 1 << 30);
    m_randomSeed->setValue(int(setup.randomSeed));
    m_randomSeed->setPrefix(tr("seed "));
    randomLayout->addWidget(m_randomCount);
    randomLayout->addWidget(m_randomSeed);
    randomLayout->addStretch(1);
    dataForm->addRow(QString(), randomRow);
    m_batch = new QSpinBox(data);
    m_batch->setRange(1, 4096);
    m_batch->setValue(setup.batch);
    dataForm->addRow(tr("&Batch:"), m_batch);
    m_kernels = new QComboBox(data);
    m_kernels->addItems({QStringLiteral("exact"), QStringLiteral("fast")});
    m_kernels->setCurrentText(setup.int8Kernels);
    m_kernels->setToolTip(
        tr("exact: bit-exact int8 reference rounding; fast: oneDNN's vectorised kernels"));
    dataForm->addRow(tr("Int8 &kernels:"), m_kernels);

    (setup.quantizeInApp || focus == Focus::QuantizeInApp ? m_inApp : m_fromFile)->setChecked(true);
    (setup.randomInputs ? m_random : m_files)->setChecked(true);
    for (QRadioButton *button : {m_fromFile, m_inApp, m_files, m_random})
        connect(button, &QRadioButton::toggled, this, &AnalysisSetupDialog::updateEnabled);
    connect(m_method, &QComboBox::currentTextChanged, this, &AnalysisSetupDialog::updateEnabled);
    updateEnabled();

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Analyze"));
    connect(buttons, &QDialogButtonBox::accepted, this, &AnalysisSetupDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(models);
    layout->addWidget(m_quantizerBox);
    layout->addWidget(data);
    layout->addWidget(buttons);
    if (focus == Focus::EvaluationData) m_data->setFocus();
    if (focus == Focus::QuantizeInApp) m_calibration->setFocus();
    resize(640, sizeHint().height());
}

QWidget *AnalysisSetupDialog::pathRow(QLineEdit *edit, const QString &filter, bool multiple, bool folder) {
    return ql::ui::pathFieldRow(this, edit, m_floatModel, filter, multiple, folder);
}

void AnalysisSetupDialog::updateEnabled() {
    m_quantModel->parentWidget()->setEnabled(m_fromFile->isChecked());
    m_quantizerBox->setEnabled(m_inApp->isChecked());
    m_percentile->setEnabled(m_method->currentText() == QLatin1String("percentile"));
    m_data->parentWidget()->setEnabled(m_files->isChecked());
    m_labels->parentWidget()->setEnabled(m_files->isChecked());
    m_preprocess->setEnabled(m_files->isChecked() || m_inApp->isChecked());
    m_randomCount->parentWidget()->setEnabled(m_random->isChecked());
}

AnalysisSetup AnalysisSetupDialog::setup() const {
    AnalysisSetup s;
    s.floatModel = m_floatModel->text().trimmed();
    s.quantizeInApp = m_inApp->isChecked();
    if (!s.quantizeInApp) s.quantModel = m_quantModel->text().trimmed();
    s.calibrationPaths = ql::ui::splitPathField(m_calibration->text());
    s.quantizer.method = m_method->currentText();
    s.quantizer.percentile = m_percentile->value();
    s.quantizer.calibrationBatch = m_calibrationBatch->value();
    s.quantizer.perTensor = m_perTensor->isChecked();
    s.quantizer.symmetricActivations = m_symmetric->isChecked();
    s.quantizer.reduceRange = m_reduceRange->isChecked();
    s.quantizer.foldBatchNorm = m_foldBn->isChecked();
    // The setup's remedies that are still checked, in their order, then the newly checked ones.
    auto isCle = [](const QString &name) { return name == QStringLiteral("cle"); };
    auto isSmooth = [](const QString &name) {
        return name.startsWith(QStringLiteral("smoothquant"));
    };
    auto isAdaRound = [](const QString &name) { return name == QStringLiteral("adaround"); };
    auto isBias = [](const QString &name) { return name == QStringLiteral("bias-correction"); };
    for (const QString &name : m_remedies)
        if ((isCle(name) && m_cle->isChecked()) || (isSmooth(name) && m_smoothQuant->isChecked()) ||
            (isAdaRound(name) && m_adaRound->isChecked()) ||
            (isBias(name) && m_biasCorrection->isChecked()))
            s.quantizer.remedies << name;
    if (m_cle->isChecked() &&
        !std::any_of(s.quantizer.remedies.begin(), s.quantizer.remedies.end(), isCle))
        s.quantizer.remedies << QStringLiteral("cle");
    if (m_smoothQuant->isChecked() &&
        !std::any_of(s.quantizer.remedies.begin(), s.quantizer.remedies.end(), isSmooth))
        s.quantizer.remedies << QStringLiteral("smoothquant");
    if (m_adaRound->isChecked() &&
        !std::any_of(s.quantizer.remedies.begin(), s.quantizer.remedies.end(), isAdaRound))
        s.quantizer.remedies << QStringLiteral("adaround");
    if (m_biasCorrection->isChecked() &&
        !std::any_of(s.quantizer.remedies.begin(), s.quantizer.remedies.end(), isBias))
        s.quantizer.remedies << QStringLiteral("bias-correction");
    s.randomInputs = m_random->isChecked();
    s.dataPaths = ql::ui::splitPathField(m_data->text());
    if (!s.randomInputs) s.labelsPath = m_labels->text().trimmed();
    s.preprocess = m_preprocess->currentText().trimmed();
    s.randomCount = m_randomCount->value();
    s.randomSeed = quint64(m_randomSeed->value());
    s.batch = m_batch->value();
    s.int8Kernels = m_kernels->currentText();
    return s;
}

void AnalysisSetupDialog::accept() {
    const AnalysisSetup s = setup();
    QStringList missing;
    auto check = [&missing](const QString &path) {
        if (!path.isEmpty() && !QFileInfo::exists(path)) missing.append(path);
    };
    check(s.floatModel);
    check(s.quantModel);
    check(s.labelsPath);
    for (const QString &path : s.dataPaths + s.calibrationPaths) check(path);
    if (!s.preprocess.isEmpty()) {
        if (auto spec = ql::quant::parsePreprocessSpec(s.preprocess.toStdString()); !spec) {
            QMessageBox::warning(
                this, windowTitle(),
                tr("Preprocess: %1").arg(QString::fromStdString(spec.status().message())));
            return;
        }
    }
    if (!s.isComplete() || !missing.isEmpty()) {
        QMessageBox::warning(
            this, windowTitle(),
            missing.isEmpty() ? s.missingText() : tr("No such file: %1").arg(missing.first()));
        return;
    }
    QDialog::accept();
}
