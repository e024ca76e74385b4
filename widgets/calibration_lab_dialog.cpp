#include "calibration_lab_dialog.h"
#include "path_field.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace ql::ui {


CalibrationLabDialog::CalibrationLabDialog(const CalibrationLabSettings &settings, QWidget *parent)
    : QDialog(parent) {
    setWindowTitle(tr("Calibration Lab"));
    const QString tensorFilter = tr("Tensors (*.npy *.pb);;All files (*)");

    auto *data = new QGroupBox(tr("Model and data"), this);
    auto *dataForm = new QFormLayout(data);
    m_floatModel = new QLineEdit(data);
    m_floatModel->setObjectName(QStringLiteral("labFloatModelEdit"));
    dataForm->addRow(
        tr("&Float model:"),
        pathRow(m_floatModel, tr("ONNX models (*.onnx);;All files (*)"), false, false));
    m_pool = new QLineEdit(data);
    m_pool->setObjectName(QStringLiteral("labPoolEdit"));
    m_pool->setToolTip(
        tr("Each file is one calibration item (one sample or a batch); every run "
           "draws its files from here. Separate several with ';'."));
    dataForm->addRow(tr("Calibration &pool:"), pathRow(m_pool, tensorFilter, true, true));
    m_evaluation = new QLineEdit(data);
    m_evaluation->setObjectName(QStringLiteral("labEvaluationEdit"));
    m_evaluation->setToolTip(
        tr("Every run is evaluated on these samples. Keep them apart from "
           "the pool, or the score flatters the calibration."));
    dataForm->addRow(tr("&Evaluation inputs:"), pathRow(m_evaluation, tensorFilter, true, true));
    m_labels = new QLineEdit(data);
    m_labels->setObjectName(QStringLiteral("labLabelsEdit"));
    m_labels->setPlaceholderText(
        tr("optional: class ids, .npy (without: top-1 agreement with the float model)"));
    dataForm->addRow(tr("L&abels:"), pathRow(m_labels, tr("NumPy arrays (*.npy)"), false, false));

    auto *runs = new QGroupBox(tr("Calibrations"), this);
    auto *runForm = new QFormLayout(runs);
    auto *methodRow = new QWidget(runs);
    auto *methodLayout = new QHBoxLayout(methodRow);
    methodLayout->setContentsMargins(0, 0, 0, 0);
    const QStringList labels{tr("MinMax"), tr("Percentile"), tr("Entropy"), tr("MSE"),
                             tr("Moving average")};
    for (int i = 0; i < CalibrationLabSettings::kMethods.size(); ++i) {
        const QString &method = CalibrationLabSettings::kMethods[i];
        auto *box = new QCheckBox(labels[i], methodRow);
        box->setObjectName(QStringLiteral("labMethod_") + method);
        m_methods.insert(method, box);
        methodLayout->addWidget(box);
        if (method == QLatin1String("percentile")) {
            m_percentile = new QDoubleSpinBox(methodRow);
            m_percentile->setObjectName(QStringLiteral("labPercentile"));
            m_percentile->setRange(50.0, 100.0);
            m_percentile->setDecimals(3);
            m_percentile->setSingleStep(0.01);
            methodLayout->addWidget(m_percentile);
        }
    }
    methodLayout->addStretch(1);
    runForm->addRow(tr("&Methods:"), methodRow);
    m_sizes = new QLineEdit(runs);
    m_sizes->setObjectName(QStringLiteral("labSizesEdit"));
    m_sizes->setPlaceholderText(QStringLiteral("8,16,32,64"));
    m_sizes->setToolTip(tr("Calibration files per run; each at most the size of the pool"));
    runForm->addRow(tr("&Sizes:"), m_sizes);
    m_repeats = new QSpinBox(runs);
    m_repeats->setObjectName(QStringLiteral("labRepeats"));
    m_repeats->setRange(1, 100);
    m_repeats->setToolTip(
        tr("Independent draws per method and size: their spread is the noise "
           "of choosing calibration samples"));
    runForm->addRow(tr("Repea&ts:"), m_repeats);
    m_selection = new QComboBox(runs);
    m_selection->setObjectName(QStringLiteral("labSelection"));
    m_selection->addItem(tr("random"), QStringLiteral("random"));
    m_selection->setItemData(0, tr("Files drawn uniformly from the pool (seeded)"),
                             Qt::ToolTipRole);
    m_selection->addItem(tr("stratified"), QStringLiteral("stratified"));
    m_selection->setItemData(
        1, tr("As even as possible over the classes the float model predicts for the pool"),
        Qt::ToolTipRole);
    m_selection->addItem(tr("first"), QStringLiteral("first"));
    m_selection->setItemData(2, tr("The first files of the pool (every repeat is the same run)"),
                             Qt::ToolTipRole);
    runForm->addRow(tr("Selecti&on:"), m_selection);
    m_batches = new QLineEdit(runs);
    m_batches->setObjectName(QStringLiteral("labBatchesEdit"));
    m_batches->setToolTip(
        tr("Samples per calibration batch, e.g. 1,8. Only the moving average "
           "depends on it; the other methods see the same values."));
    runForm->addRow(tr("Calibration &batches:"), m_batches);
    m_remedies = new QLineEdit(runs);
    m_remedies->setObjectName(QStringLiteral("labRemediesEdit"));
    m_remedies->setToolTip(
        tr("Remedy sets applied after quantizing each calibration, comma-separated: none, "
           "bias-correction, adaround, adaround+bias-correction. Each remedied run is compared "
           "with the same calibration without remedies."));
    runForm->addRow(tr("Re&medies:"), m_remedies);
    m_seed = new QSpinBox(runs);
    m_seed->setRange(0, 1 << 30);
    runForm->addRow(tr("See&d:"), m_seed);
    m_evaluationBatch = new QSpinBox(runs);
    m_evaluationBatch->setRange(1, 4096);
    runForm->addRow(tr("Evaluation batc&h:"), m_evaluationBatch);

    auto *quantizer = new QGroupBox(tr("Quantizer"), this);
    auto *quantizerLayout = new QVBoxLayout(quantizer);
    m_perTensor = new QCheckBox(tr("Weights per tensor (not per &channel)"), quantizer);
    m_symmetric = new QCheckBox(tr("S&ymmetric int8 activations"), quantizer);
    m_reduceRange = new QCheckBox(tr("Reduce range (&7-bit activations)"), quantizer);
    m_foldBn = new QCheckBox(tr("Fold Batch&Normalization"), quantizer);
    m_layers = new QCheckBox(tr("Per-layer S&QNR of every run (slower)"), quantizer);
    m_layers->setObjectName(QStringLiteral("labLayers"));
    for (QCheckBox *box : {m_perTensor, m_symmetric, m_reduceRange, m_foldBn, m_layers})
        quantizerLayout->addWidget(box);

    m_planned = new QLabel(this);
    m_planned->setObjectName(QStringLiteral("labPlannedRuns"));
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("labValidationMessage"));
    m_problem->setWordWrap(true);
    QPalette problemPalette = m_problem->palette();
    problemPalette.setColor(QPalette::WindowText, QColor(200, 30, 30));
    m_problem->setPalette(problemPalette);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_run = buttons->button(QDialogButtonBox::Ok);
    m_run->setText(tr("&Run"));
    connect(buttons, &QDialogButtonBox::accepted, this, &CalibrationLabDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(data);
    layout->addWidget(runs);
    layout->addWidget(quantizer);
    layout->addWidget(m_planned);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);

    setSettings(settings);
    for (QLineEdit *edit :
         {m_floatModel, m_pool, m_evaluation, m_labels, m_sizes, m_batches, m_remedies})
        connect(edit, &QLineEdit::textChanged, this, &CalibrationLabDialog::updateState);
    for (QCheckBox *box : m_methods)
        connect(box, &QCheckBox::toggled, this, &CalibrationLabDialog::updateState);
    connect(m_repeats, &QSpinBox::valueChanged, this, &CalibrationLabDialog::updateState);
    connect(m_selection, &QComboBox::currentIndexChanged, this, &CalibrationLabDialog::updateState);
    resize(680, sizeHint().height());
}

QWidget *CalibrationLabDialog::pathRow(QLineEdit *edit, const QString &filter, bool multiple, bool folder) {
    return ql::ui::pathFieldRow(this, edit, m_floatModel, filter, multiple, folder);
}

void CalibrationLabDialog::setSettings(const CalibrationLabSettings &s) {
    m_floatModel->setText(s.floatModel);
    m_pool->setText(ql::ui::joinPathField(s.poolPaths));
    m_evaluation->setText(ql::ui::joinPathField(s.evaluationPaths));
    m_labels->setText(s.labelsPath);
    for (auto it = m_methods.begin(); it != m_methods.end(); ++it)
        it.value()->setChecked(s.methods.contains(it.key()));
    m_percentile->setValue(s.percentile);
    m_sizes->setText(s.sizes);
    m_repeats->setValue(s.repeats);
    m_selection->setCurrentIndex(std::max(0, m_selection->findData(s.selection)));
    m_batches->setText(s.calibrationBatches);
    m_remedies->setText(s.remedies);
    m_seed->setValue(int(std::min<quint64>(s.seed, quint64(m_seed->maximum()))));
    m_evaluationBatch->setValue(s.evaluationBatch);
    m_perTensor->setChecked(s.perTensor);
    m_symmetric->setChecked(s.symmetricActivations);
    m_reduceRange->setChecked(s.reduceRange);
    m_foldBn->setChecked(s.foldBatchNorm);
    m_layers->setChecked(s.layers);
    updateState();
}

CalibrationLabSettings CalibrationLabDialog::settings() const {
    CalibrationLabSettings s;
    s.floatModel = m_floatModel->text().trimmed();
    s.poolPaths = ql::ui::splitPathField(m_pool->text());
    s.evaluationPaths = ql::ui::splitPathField(m_evaluation->text());
    s.labelsPath = m_labels->text().trimmed();
    s.methods.clear();
    for (const QString &method : CalibrationLabSettings::kMethods)
        if (m_methods.value(method)->isChecked()) s.methods.append(method);
    s.percentile = m_percentile->value();
    s.sizes = m_sizes->text().trimmed();
    s.repeats = m_repeats->value();
    s.selection = m_selection->currentData().toString();
    s.calibrationBatches = m_batches->text().trimmed();
    s.remedies = m_remedies->text().trimmed();
    s.seed = quint64(m_seed->value());
    s.evaluationBatch = m_evaluationBatch->value();
    s.perTensor = m_perTensor->isChecked();
    s.symmetricActivations = m_symmetric->isChecked();
    s.reduceRange = m_reduceRange->isChecked();
    s.foldBatchNorm = m_foldBn->isChecked();
    s.layers = m_layers->isChecked();
    return s;
}

QString CalibrationLabDialog::validationMessage() const {
    return m_problem->text();
}

void CalibrationLabDialog::updateState() {
    m_percentile->setEnabled(m_methods.value(QStringLiteral("percentile"))->isChecked());
    const CalibrationLabSettings s = settings();
    const QString problem = s.validate();
    m_problem->setText(problem);
    m_run->setEnabled(problem.isEmpty());
    const int planned = s.plannedRuns();
    m_planned->setText(planned > 0 ? tr("%n run(s) planned", nullptr, planned) : QString());
}

void CalibrationLabDialog::accept() {
    const CalibrationLabSettings s = settings();
    QString problem = s.validate();
    if (problem.isEmpty()) {
        QStringList paths{s.floatModel, s.labelsPath};
        paths += s.poolPaths + s.evaluationPaths;
        for (const QString &path : paths)
            if (!path.isEmpty() && !QFileInfo::exists(path)) {
                problem = tr("No such file or folder: %1").arg(path);
                break;
            }
    }
    m_problem->setText(problem);
    if (problem.isEmpty()) QDialog::accept();
}

}  // namespace ql::ui
