// LayerInspector over the Fashion-MNIST FX fixture (loaded, matched and analysed with the engine
// here): the tables and plot data equal the engine's inspection of the same layer, requests run
// off the GUI thread with a busy state, a newer request supersedes an older one, elements are
// explained on demand, and an int8 BatchNormalization (the fixture quantized in-engine without
// BN folding) is explained too. With QL_INSPECTOR_SHOTS=<dir> it saves PNG renders there.

#include <qcustomplot.h>
#include <QCheckBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QThreadPool>
#include <QtTest>

#include <cstring>
#include <memory>

#include "analysis/session/keep_layers_fp32.h"
#include "analysis/explain/layer_inspection.h"
#include "analysis/suite/numeric_suite.h"
#include "element_explanation_view.h"
#include "layer_inspector.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/tensor_file.h"
#include "quant/calibration.h"
#include "quant/qdq_builder.h"
#include "worker_pool.h"

using ql::ui::InspectorContext;
using ql::ui::LayerInspector;

namespace {

const QString kFixture = QStringLiteral(QL_FX_FIXTURE_DIR);

std::shared_ptr<const std::map<std::string, ql::Tensor>> firstSamples(const ql::Graph &g,
                                                                      const ql::Tensor &all,
                                                                      int64_t count) {
    ql::Shape shape = all.shape();
    shape[0] = count;
    ql::Tensor t(ql::DataType::Float, shape);
    std::memcpy(t.data<float>(), all.data<float>(), sizeof(float) * size_t(t.numel()));
    auto batch = std::make_shared<std::map<std::string, ql::Tensor>>();
    (*batch)[g.inputs[0].name] = t;
    return batch;
}

// Models, matches and a numeric-suite report on the batch: what the main window hands over.
bool makeContext(std::shared_ptr<const ql::Graph> floatGraph,
                 std::shared_ptr<const ql::Graph> quantGraph,
                 std::shared_ptr<const std::map<std::string, ql::Tensor>> batch,
                 InspectorContext &context) {
    auto matching = ql::analysis::matchLayers(*floatGraph, *quantGraph);
    if (!matching) return false;
    ql::analysis::NumericSuiteOptions options;
    options.isolated = false;
    options.kernelCheck = false;
    auto report = ql::analysis::runNumericSuite(
        *floatGraph, *quantGraph,
        [batch]() -> ql::Result<ql::analysis::ActivationBatchSource> {
            auto done = std::make_shared<bool>(false);
            return ql::analysis::ActivationBatchSource(
                [batch, done](std::map<std::string, ql::Tensor> &out) -> ql::Result<bool> {
                    if (*done) return false;
                    out = *batch;
                    *done = true;
                    return true;
                });
        },
        options);
    if (!report) {
        qWarning() << QString::fromStdString(report.status().message());
        return false;
    }
    context.floatGraph = floatGraph;
    context.quantGraph = quantGraph;
    context.batch = batch;
    context.report = std::make_shared<ql::analysis::NumericSuiteReport>(std::move(*report));
    context.matches = matching->matches;
    return true;
}

int rowOf(const InspectorContext &c, const std::string &name) {
    for (size_t i = 0; i < c.report->layers.size(); ++i)
        if (c.report->layers[i].name == name) return int(i);
    return -1;
}

double graphSum(const QCPGraph *g) {
    double s = 0.0;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) s += it->value;
    return s;
}

bool waitInspected(LayerInspector &inspector, QSignalSpy &spy, int timeoutMs = 120000) {
    QElapsedTimer timer;
    timer.start();
    while (inspector.isBusy() && timer.elapsed() < timeoutMs) spy.wait(200);
    return !inspector.isBusy();
}

void saveShot(LayerInspector &inspector, int tab, const QString &name) {
    const QString dir = qEnvironmentVariable("QL_INSPECTOR_SHOTS");
    if (dir.isEmpty()) return;
    inspector.tabs()->setCurrentIndex(tab);
    QCoreApplication::processEvents();
    QVERIFY(inspector.grab().save(dir + QLatin1Char('/') + name));
}

}  // namespace

class TestLayerInspector : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void emptyInspector();
    void conv1TablesAndPlotsEqualTheEngine();
    void gemmIsExplainedAsTheKernelComputesIt();
    void darkPaletteRender();
    void addAndMaxPoolAreExplained();
    void newerRequestSupersedesOlder();
    void typedElementIsExplained();
    void batchNormRunningInt8IsExplained();
    void preparedModelsAreReusedAcrossLayersAndToggles();
    void cleanupTestCase();

private:
    InspectorContext m_context;
    ql::Tensor m_inputs;
};

void TestLayerInspector::initTestCase() {
    QLocale::setDefault(QLocale::c());
    auto fm = ql::loadModel((kFixture + QStringLiteral("/float.onnx")).toStdString());
    auto qm = ql::loadModel((kFixture + QStringLiteral("/qdq.onnx")).toStdString());
    auto in = ql::readTensorFile((kFixture + QStringLiteral("/inputs.npy")).toStdString());
    QVERIFY(fm && qm && in);
    m_inputs = *in;
    auto floatGraph = std::make_shared<const ql::Graph>(std::move(*fm));
    auto quantGraph = std::make_shared<const ql::Graph>(std::move(*qm));
    QVERIFY(
        makeContext(floatGraph, quantGraph, firstSamples(*floatGraph, m_inputs, 32), m_context));
}

void TestLayerInspector::emptyInspector() {
    LayerInspector inspector;
    QCOMPARE(inspector.layer(), -1);
    QVERIFY(!inspector.isBusy());
    QVERIFY(!inspector.inspection());
    QCOMPARE(inspector.tensorTable()->rowCount(), 0);
    inspector.setContext(m_context);
    inspector.setLayer(999);  // out of range: cleared
    QCOMPARE(inspector.layer(), -1);
    QVERIFY(!inspector.isBusy());
}

void TestLayerInspector::conv1TablesAndPlotsEqualTheEngine() {
    LayerInspector inspector;
    inspector.resize(1000, 640);
    inspector.setContext(m_context);
    QSignalSpy spy(&inspector, &LayerInspector::inspected);
    const int row = rowOf(m_context, "/conv1/Conv");
    QVERIFY(row >= 0);
    inspector.setLayer(row);
    QVERIFY(inspector.isBusy());  // the work runs off the GUI thread
    QVERIFY(!inspector.tabs()->isEnabled());
    QVERIFY(waitInspected(inspector, spy));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), row);
    QVERIFY(inspector.tabs()->isEnabled());
    QVERIFY2(inspector.inspection(), qPrintable(inspector.errorText()));

    // The engine's own inspection of the same layer.
    const ql::analysis::LayerMatch *match = nullptr;
    for (const auto &m : m_context.matches)
        if (m.floatNode == "/conv1/Conv") match = &m;
    QVERIFY(match);
    auto engine = ql::analysis::inspectLayer(*m_context.floatGraph, *m_context.quantGraph, *match,
                                             *m_context.batch, m_context.options);
    QVERIFY(engine);

    // Tensor table: one row per parameter set, scales as the engine reports them.
    QCOMPARE(inspector.tensorTable()->rowCount(), int(engine->qparams.size()));
    for (int i = 0; i < int(engine->qparams.size()); ++i) {
        const auto &p = engine->qparams[size_t(i)];
        QCOMPARE(inspector.tensorTable()->item(i, 0)->text(), QString::fromStdString(p.role));
        QCOMPARE(inspector.tensorTable()->item(i, 1)->text(), QString::fromStdString(p.value));
        if (p.scale.size() == 1)
            QCOMPARE(inspector.tensorTable()->item(i, 4)->text(),
                     QString::number(p.scale[0], 'g', 6));
    }
    // Channel table: one row per output channel with the weight's scale and the int32 bias.
    const ql::analysis::QuantParamSet *w = nullptr, *b = nullptr;
    for (const auto &p : engine->qparams) {
        if (p.role == "weight") w = &p;
        if (p.role == "bias") b = &p;
    }
    QVERIFY(w && b);
    QCOMPARE(inspector.channelTable()->rowCount(), int(w->scale.size()));
    for (int c = 0; c < int(w->scale.size()); ++c) {
        QCOMPARE(inspector.channelTable()->item(c, 1)->text(),
                 QString::number(w->scale[size_t(c)], 'g', 6));
        QCOMPARE(inspector.channelTable()->item(c, 3)->text(),
                 QString::number(b->values[size_t(c)]));
    }
    const auto &layer = m_context.report->layers[size_t(row)];
    QCOMPARE(inspector.channelTable()->item(0, 4)->text(),
             QString::number(layer.weightChannelMin[0], 'g', 6));

    // Histograms: the plotted counts add up to the element counts of the engine's histograms.
    auto countOf = [](const std::vector<int64_t> &v) {
        return double(std::accumulate(v.begin(), v.end(), int64_t(0)));
    };
    QCOMPARE(inspector.weightPlot()->graphCount(), 2);
    QCOMPARE(inspector.weightPlot()->graph(0)->dataCount(),
             int(engine->weightHistogram->floatCounts.size()) + 2);
    QCOMPARE(graphSum(inspector.weightPlot()->graph(0)),
             countOf(engine->weightHistogram->floatCounts));
    QCOMPARE(graphSum(inspector.weightPlot()->graph(1)),
             countOf(engine->weightHistogram->quantCounts));
    QCOMPARE(graphSum(inspector.activationPlot()->graph(0)), double(32 * 16 * 28 * 28));
    QCOMPARE(graphSum(inspector.activationPlot()->graph(1)), double(32 * 16 * 28 * 28));
    // Scatter: the engine's points, with the y = x line.
    QCOMPARE(inspector.scatterPlot()->graph(0)->dataCount(),
             int(engine->scatter.floatValues.size()));
    QCOMPARE(inspector.scatterPlot()->graph(0)->dataCount(), 4000);
    QVERIFY(inspector.scatterPlot()->itemCount() >= 1);
    // Channels: one bar per channel; per-sample SQNR: one point per sample.
    auto *bars = qobject_cast<QCPBars *>(inspector.channelPlot()->plottable(0));
    QVERIFY(bars);
    QCOMPARE(bars->dataCount(), int(layer.weightChannelMax.size()));
    QCOMPARE(inspector.samplePlot()->graph(0)->dataCount(),
             int(layer.cumulative->sampleSqnrValues.size()));
    QCOMPARE(inspector.samplePlot()->graph(0)->dataCount(), 32);

    // The explained element: the engine's worst element, recomputed integer equal to the kernel's.
    QVERIFY(inspector.inspection()->explanation);
    const auto &e = *inspector.inspection()->explanation;
    QCOMPARE(e.element, engine->explanation->element);
    QVERIFY(e.matchesEngine);
    const QString integer = inspector.explanationView()->integerText()->toPlainText();
    QVERIFY(integer.contains(QStringLiteral("QLinearConv")));
    QVERIFY(integer.contains(QStringLiteral("int32 accumulation Σ = %1").arg(e.accumulator)));
    QVERIFY(integer.contains(QStringLiteral("✓ equal")));
    const QString floatSide = inspector.explanationView()->floatText()->toPlainText();
    QVERIFY(floatSide.contains(QStringLiteral("BatchNormalization folded")));
    QVERIFY(floatSide.contains(QStringLiteral("from requantization")));
    QCOMPARE(inspector.explanationView()->elementEdit()->text(), ql::ui::formatElement(e.element));

    saveShot(inspector, LayerInspector::ParametersTab, QStringLiteral("conv1_quantization.png"));
    saveShot(inspector, LayerInspector::WeightsTab, QStringLiteral("conv1_weights.png"));
    saveShot(inspector, LayerInspector::ActivationsTab, QStringLiteral("conv1_activations.png"));
    saveShot(inspector, LayerInspector::ScatterTab, QStringLiteral("conv1_scatter.png"));
    // Options: logarithmic counts; the scatter as error against the float value.
    inspector.logCountBox()->setChecked(true);
    QCOMPARE(inspector.activationPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    saveShot(inspector, LayerInspector::ActivationsTab,
             QStringLiteral("conv1_activations_log.png"));
    inspector.logCountBox()->setChecked(false);
    QCOMPARE(inspector.activationPlot()->yAxis->scaleType(), QCPAxis::stLinear);
    inspector.scatterErrorBox()->setChecked(true);
    const QCPGraph *errors = inspector.scatterPlot()->graph(0);
    QCOMPARE(errors->dataCount(), 4000);
    const auto &sc = engine->scatter;
    QCOMPARE(errors->data()->constBegin()->value,
             double(sc.quantValues[0]) - double(sc.floatValues[0]));
    saveShot(inspector, LayerInspector::ScatterTab, QStringLiteral("conv1_scatter_error.png"));
    inspector.scatterErrorBox()->setChecked(false);
    saveShot(inspector, LayerInspector::ChannelsTab, QStringLiteral("conv1_channels.png"));
    saveShot(inspector, LayerInspector::SamplesTab, QStringLiteral("conv1_samples.png"));
    saveShot(inspector, LayerInspector::ExplainTab, QStringLiteral("conv1_explain.png"));
}

void TestLayerInspector::addAndMaxPoolAreExplained() {
    LayerInspector inspector;
    inspector.resize(1000, 640);
    inspector.setContext(m_context);
    QSignalSpy spy(&inspector, &LayerInspector::inspected);
    for (const char *name : {"/Add", "/pool1/MaxPool"}) {
        inspector.setLayer(rowOf(m_context, name));
        QVERIFY(waitInspected(inspector, spy));
        QVERIFY2(inspector.inspection(), qPrintable(inspector.errorText()));
        QVERIFY(inspector.inspection()->explanation);
        const auto &e = *inspector.inspection()->explanation;
        QCOMPARE(e.kind, ql::analysis::ElementExplanation::Kind::Requantize);
        QVERIFY(e.matchesEngine);
        QVERIFY(inspector.explanationView()->integerText()->toPlainText().contains(
            QStringLiteral("Operands")));
        QVERIFY(!inspector.inspection()->weightHistogram);
        // MaxPool runs on the 8-bit tensor: no requantization, the float side is the window's max.
        if (QLatin1String(name) == QLatin1String("/pool1/MaxPool")) {
            QVERIFY(!e.requantized);
            QCOMPARE(e.floatComputed, e.floatModelValue);
            QVERIFY(inspector.explanationView()->integerText()->toPlainText().contains(
                QStringLiteral("No requantization")));
        }
        saveShot(
            inspector, LayerInspector::ExplainTab,
            QString::fromLatin1(name).mid(1).replace(QLatin1Char('/'), QLatin1Char('_')).toLower() +
                QStringLiteral("_explain.png"));
    }
}

void TestLayerInspector::darkPaletteRender() {
    LayerInspector inspector;
    inspector.resize(1000, 640);
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 48));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    dark.setColor(QPalette::Base, QColor(30, 30, 32));
    dark.setColor(QPalette::AlternateBase, QColor(40, 40, 44));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    dark.setColor(QPalette::Button, QColor(55, 55, 58));
    dark.setColor(QPalette::ButtonText, QColor(230, 230, 230));
    dark.setColor(QPalette::Mid, QColor(90, 90, 95));
    inspector.setPalette(dark);
    inspector.setContext(m_context);
    QSignalSpy spy(&inspector, &LayerInspector::inspected);
    inspector.setLayer(rowOf(m_context, "/conv2/Conv"));
    QVERIFY(waitInspected(inspector, spy));
    QVERIFY(inspector.inspection());
    // The plots follow the palette: tick labels in the text colour.
    QCOMPARE(inspector.weightPlot()->xAxis->tickLabelColor(), QColor(230, 230, 230));
    saveShot(inspector, LayerInspector::WeightsTab, QStringLiteral("conv2_weights_dark.png"));
    saveShot(inspector, LayerInspector::ExplainTab, QStringLiteral("conv2_explain_dark.png"));
}

void TestLayerInspector::gemmIsExplainedAsTheKernelComputesIt() {
    LayerInspector inspector;
    inspector.resize(1000, 640);
    inspector.setContext(m_context);
    QSignalSpy spy(&inspector, &LayerInspector::inspected);
    inspector.setLayer(rowOf(m_context, "/fc/Gemm"));
    QVERIFY(waitInspected(inspector, spy));
    QVERIFY2(inspector.inspection(), qPrintable(inspector.errorText()));
    const auto &e = *inspector.inspection()->explanation;
    QCOMPARE(e.kind, ql::analysis::ElementExplanation::Kind::IntegerMatMul);
    QCOMPARE(QString::fromStdString(e.quantOp), QStringLiteral("QGemm"));
    QCOMPARE(int(e.terms.size()), 32 * 7 * 7);
    QVERIFY(e.matchesEngine);
    QCOMPARE(inspector.channelTable()->rowCount(), 10);
    saveShot(inspector, LayerInspector::ExplainTab, QStringLiteral("fc_explain.png"));
    saveShot(inspector, LayerInspector::ScatterTab, QStringLiteral("fc_scatter.png"));
    saveShot(inspector, LayerInspector::ChannelsTab, QStringLiteral("fc_channels.png"));
}

void TestLayerInspector::newerRequestSupersedesOlder() {
    LayerInspector inspector;
    inspector.setContext(m_context);
    QSignalSpy spy(&inspector, &LayerInspector::inspected);
    const int first = rowOf(m_context, "/conv2/Conv"), second = rowOf(m_context, "/pool1/MaxPool");
    inspector.setLayer(first);
    inspector.setLayer(second);
    QVERIFY(waitInspected(inspector, spy));
    QCOMPARE(spy.count(), 1);  // the first request's result was dropped
    QCOMPARE(spy.at(0).at(0).toInt(), second);
    QCOMPARE(inspector.layer(), second);
    QVERIFY(inspector.inspection());
    QCOMPARE(inspector.inspection()->match.floatNode, std::string("/pool1/MaxPool"));
    QVERIFY(!inspector.inspection()->weightHistogram);
}

void TestLayerInspector::typedElementIsExplained() {
    LayerInspector inspector;
    inspector.setContext(m_context);
    QSignalSpy spy(&inspector, &LayerInspector::inspected);
    inspector.setLayer(rowOf(m_context, "/conv2/Conv"));
    QVERIFY(waitInspected(inspector, spy));
    auto *edit = inspector.explanationView()->elementEdit();
    edit->setText(QStringLiteral("3, 5, 0, 27"));
    QTest::keyClick(edit, Qt::Key_Return);
    QVERIFY(inspector.isBusy());
    QVERIFY(waitInspected(inspector, spy));
    QVERIFY(inspector.inspection() && inspector.inspection()->explanation);
    const auto &e = *inspector.inspection()->explanation;
    QCOMPARE(e.element, (std::vector<int64_t>{3, 5, 0, 27}));
    QVERIFY(e.paddingTaps > 0);  // the right edge: part of the window is padding
    QVERIFY(e.matchesEngine);
    // A bad element is reported, not explained.
    edit->setText(QStringLiteral("0, 99, 0, 0"));
    QTest::keyClick(edit, Qt::Key_Return);
    QVERIFY(waitInspected(inspector, spy));
    QVERIFY(!inspector.inspection()->explanation);
    QVERIFY(inspector.inspection()->notes.back().find("out of range") != std::string::npos);
}

void TestLayerInspector::batchNormRunningInt8IsExplained() {
    // The fixture's float model quantized here without BN folding: DQ -> BN -> Q runs int8.
    auto calibrationBatch = firstSamples(*m_context.floatGraph, m_inputs, 32);
    ql::quant::CalibrationStatistics stats;
    QVERIFY(ql::quant::calibrate(*m_context.floatGraph,
                                 std::vector<std::map<std::string, ql::Tensor>>{*calibrationBatch},
                                 stats)
                .isOk());
    ql::quant::QuantizationOptions options;
    options.foldBatchNorm = false;
    auto quantized = ql::quant::quantizeGraph(*m_context.floatGraph, stats, options);
    QVERIFY(quantized);
    InspectorContext context;
    QVERIFY(makeContext(m_context.floatGraph, std::make_shared<const ql::Graph>(quantized->model),
                        m_context.batch, context));
    const int row = rowOf(context, "/bn1/BatchNormalization");
    QVERIFY(row >= 0);
    LayerInspector inspector;
    inspector.resize(1000, 640);
    inspector.setContext(context);
    QSignalSpy spy(&inspector, &LayerInspector::inspected);
    inspector.setLayer(row);
    QVERIFY(waitInspected(inspector, spy));
    QVERIFY2(inspector.inspection(), qPrintable(inspector.errorText()));
    QCOMPARE(QString::fromStdString(inspector.inspection()->quantRunOp),
             QStringLiteral("BatchNormalization"));
    const auto &e = *inspector.inspection()->explanation;
    QCOMPARE(e.kind, ql::analysis::ElementExplanation::Kind::BatchNorm);
    QVERIFY(e.engineQuantized);
    QVERIFY(e.matchesEngine);
    const QString integer = inspector.explanationView()->integerText()->toPlainText();
    QVERIFY(integer.contains(QStringLiteral("gamma·(x − mean)/sqrt(var + eps) + beta")));
    QVERIFY(inspector.tensorTable()->rowCount() >= 2);  // input and output
    saveShot(inspector, LayerInspector::ExplainTab, QStringLiteral("bn1_explain.png"));
    saveShot(inspector, LayerInspector::ActivationsTab, QStringLiteral("bn1_activations.png"));
    saveShot(inspector, LayerInspector::SamplesTab, QStringLiteral("bn1_samples.png"));
}

namespace {

// The inspector's figures for a layer against a fresh engine inspection of the same layer.
void compareWithEngine(const LayerInspector &inspector, const InspectorContext &context,
                       const std::string &layer) {
    QVERIFY2(inspector.inspection(), qPrintable(inspector.errorText()));
    const ql::analysis::LayerMatch *match = nullptr;
    for (const auto &m : context.matches)
        if (m.floatNode == layer) match = &m;
    QVERIFY(match);
    auto engine = ql::analysis::inspectLayer(*context.floatGraph, *context.quantGraph, *match,
                                             *context.batch, context.options);
    QVERIFY(engine);
    const auto &shown = *inspector.inspection();
    QCOMPARE(shown.match.floatNode, layer);
    QCOMPARE(shown.quantRunOp, engine->quantRunOp);
    QVERIFY(shown.activationHistogram && engine->activationHistogram);
    QCOMPARE(shown.activationHistogram->lo, engine->activationHistogram->lo);
    QCOMPARE(shown.activationHistogram->hi, engine->activationHistogram->hi);
    QCOMPARE(shown.activationHistogram->floatCounts, engine->activationHistogram->floatCounts);
    QCOMPARE(shown.activationHistogram->quantCounts, engine->activationHistogram->quantCounts);
    QCOMPARE(shown.scatter.floatValues, engine->scatter.floatValues);
    QCOMPARE(shown.scatter.quantValues, engine->scatter.quantValues);
}

}  // namespace

void TestLayerInspector::preparedModelsAreReusedAcrossLayersAndToggles() {
    LayerInspector inspector;
    inspector.setContext(m_context);
    QSignalSpy spy(&inspector, &LayerInspector::inspected);
    QCOMPARE(inspector.captureRunnersBuilt(), 0);  // nothing is prepared before a request
    inspector.setLayer(rowOf(m_context, "/conv1/Conv"));
    QVERIFY(waitInspected(inspector, spy));
    compareWithEngine(inspector, m_context, "/conv1/Conv");
    QCOMPARE(inspector.captureRunnersBuilt(), 1);
    // In the background both models run once more on the whole batch and their values are kept.
    const auto runner = inspector.captureRunner();
    QVERIFY(runner);
    QTRY_VERIFY_WITH_TIMEOUT(runner->modelRuns() == 4 && runner->cachedBytes() > 0, 60000);
    // Further layers of the same context reuse the prepared models and run nothing.
    for (const char *layer : {"/conv2/Conv", "/fc/Gemm", "/conv1/Conv"}) {
        inspector.setLayer(rowOf(m_context, layer));
        QVERIFY(waitInspected(inspector, spy));
        compareWithEngine(inspector, m_context, layer);
    }
    QCOMPARE(inspector.captureRunnersBuilt(), 1);
    QCOMPARE(runner->modelRuns(), 4);
    // A new report on the same models (same graphs) keeps them too.
    inspector.setContext(m_context);
    inspector.setLayer(rowOf(m_context, "/conv2/Conv"));
    QVERIFY(waitInspected(inspector, spy));
    QCOMPARE(inspector.captureRunnersBuilt(), 1);

    // A toggle: the same float graph, /conv2/Conv kept fp32 in a new quantized graph. Only the
    // quantized half is prepared again, and the figures follow the new model.
    ql::Graph toggled = *m_context.quantGraph;
    const ql::analysis::LayerMatch *conv2 = nullptr;
    for (const auto &m : m_context.matches)
        if (m.floatNode == "/conv2/Conv") conv2 = &m;
    QVERIFY(conv2);
    QVERIFY(ql::analysis::keepLayersFp32(toggled, *m_context.floatGraph, {*conv2}).isOk());
    InspectorContext toggledContext;
    QVERIFY(makeContext(m_context.floatGraph, std::make_shared<const ql::Graph>(toggled),
                        m_context.batch, toggledContext));
    inspector.setContext(toggledContext);
    QCOMPARE(inspector.captureRunnersBuilt(), 1);
    inspector.setLayer(rowOf(toggledContext, "/conv2/Conv"));
    QVERIFY(waitInspected(inspector, spy));
    compareWithEngine(inspector, toggledContext, "/conv2/Conv");
    QCOMPARE(QString::fromStdString(inspector.inspection()->quantRunOp), QStringLiteral("Conv"));
    QCOMPARE(inspector.captureRunnersBuilt(), 2);
    QCOMPARE(inspector.floatHalvesReused(), 1);
    const auto toggledRunner = inspector.captureRunner();
    QVERIFY(toggledRunner && toggledRunner->sharesFloatHalfWith(*runner));
    // The float values are kept already: only the quantized model runs to keep its values.
    QTRY_VERIFY_WITH_TIMEOUT(toggledRunner->modelRuns() == 4, 60000);  // float 2 (shared) + 2
    inspector.setLayer(rowOf(toggledContext, "/fc/Gemm"));
    QVERIFY(waitInspected(inspector, spy));
    compareWithEngine(inspector, toggledContext, "/fc/Gemm");
    QCOMPARE(inspector.captureRunnersBuilt(), 2);
    QCOMPARE(toggledRunner->modelRuns(), 4);

    // Another float graph (another model pair): everything is prepared again.
    InspectorContext other = m_context;
    other.floatGraph = std::make_shared<const ql::Graph>(*m_context.floatGraph);
    inspector.setContext(other);
    inspector.setLayer(rowOf(other, "/conv1/Conv"));
    QVERIFY(waitInspected(inspector, spy));
    compareWithEngine(inspector, other, "/conv1/Conv");
    QCOMPARE(inspector.captureRunnersBuilt(), 3);
    QCOMPARE(inspector.floatHalvesReused(), 1);
}

void TestLayerInspector::cleanupTestCase() {
    // Jobs outliving their inspectors (values kept in the background) end before the process.
    ql::ui::workerPool()->waitForDone();
}

QTEST_MAIN(TestLayerInspector)
#include "tst_layer_inspector.moc"
