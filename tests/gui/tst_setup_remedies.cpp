// Remedies in the analysis setup (issue 36): the dialog's CLE, SmoothQuant and AdaRound boxes
// keep the project's order and SmoothQuant's α, the project JSON carries them, the engine request
// parses them (and refuses an unknown one with one line), and a session quantized in the app
// applies them: on SmoothQuant's ViT case the output SQNR gains what `quantize --remedy
// smoothquant` gains; with AdaRound the Fashion-MNIST MobileNet (per-tensor weights) gains on
// test images it was not calibrated on, and a layer toggled to fp32 gets its float weights back.
#include <QCheckBox>
#include <QDir>
#include <QJsonArray>
#include <QtTest>

#include <algorithm>

#include "analysis_job.h"
#include "analysis_setup.h"
#include "analysis_setup_dialog.h"
#include "remedy_setups.h"

class TestSetupRemedies : public QObject {
    Q_OBJECT
private slots:
    void dialogKeepsOrderAndAlpha();
    void requestParsesRemedies();
    void sessionAppliesSmoothQuant();
    void sessionRoundsAdaptively();
    void sessionCorrectsEveryBias();
};

namespace {

using remedy_setups::kData;

AnalysisSetup vitSetup() {
    return remedy_setups::perTensorInApp("fashion_vit.onnx", "fashion_calib.npy", 16);
}

}  // namespace

void TestSetupRemedies::dialogKeepsOrderAndAlpha() {
    AnalysisSetup setup = vitSetup();
    setup.quantizer.remedies = {"smoothquant=0.6", "cle"};
    AnalysisSetupDialog dialog(setup);
    QVERIFY(dialog.crossLayerEqualizationBox()->isChecked());
    QVERIFY(dialog.smoothQuantBox()->isChecked());
    QCOMPARE(dialog.setup(), setup);
    dialog.smoothQuantBox()->setChecked(false);
    QCOMPARE(dialog.setup().quantizer.remedies, QStringList{"cle"});
    dialog.smoothQuantBox()->setChecked(true);  // back as the project had it
    QCOMPARE(dialog.setup(), setup);
    AnalysisSetup cleOnly = vitSetup();
    cleOnly.quantizer.remedies = {"cle"};
    AnalysisSetupDialog added(cleOnly);
    added.smoothQuantBox()->setChecked(true);  // new: the default α, after what was there
    QCOMPARE(added.setup().quantizer.remedies, (QStringList{"cle", "smoothquant"}));
    QVERIFY(!added.adaRoundBox()->isChecked());
    added.adaRoundBox()->setChecked(true);
    QCOMPARE(added.setup().quantizer.remedies, (QStringList{"cle", "smoothquant", "adaround"}));
    AnalysisSetup rounded = vitSetup();
    rounded.quantizer.remedies = {"adaround", "cle"};
    AnalysisSetupDialog reopened(rounded);
    QVERIFY(reopened.adaRoundBox()->isChecked());
    QCOMPARE(reopened.setup(), rounded);
    AnalysisSetupDialog plain(vitSetup());
    QVERIFY(!plain.crossLayerEqualizationBox()->isChecked());
    QVERIFY(!plain.smoothQuantBox()->isChecked());
    QVERIFY(plain.setup().quantizer.remedies.isEmpty());

    const QJsonObject json = setup.toJson(QDir(kData));
    QCOMPARE(json.value("quantizer").toObject().value("remedies").toArray(),
             (QJsonArray{"smoothquant=0.6", "cle"}));
    QCOMPARE(AnalysisSetup::fromJson(json, QDir(kData)), setup);
    QVERIFY(!vitSetup().toJson(QDir(kData)).value("quantizer").toObject().contains("remedies"));
}

void TestSetupRemedies::requestParsesRemedies() {
    AnalysisSetup setup = vitSetup();
    setup.quantizer.remedies = {"cle", "smoothquant=0.25"};
    ql::ui::AnalysisRequest request;
    QString error;
    QVERIFY2(setup.toRequest(request, error), qPrintable(error));
    QCOMPARE(request.remedies.size(), size_t(2));
    QVERIFY(request.remedies[0].kind == ql::quant::FloatRemedy::Kind::CrossLayerEqualization);
    QVERIFY(request.remedies[1].kind == ql::quant::FloatRemedy::Kind::SmoothQuant);
    QCOMPARE(request.remedies[1].alpha, 0.25);
    QVERIFY(!request.adaRound);
    setup.quantizer.remedies = {"adaround"};
    QVERIFY2(setup.toRequest(request, error), qPrintable(error));
    QVERIFY(request.adaRound);
    QVERIFY(request.remedies.empty());
    setup.quantizer.remedies = {"nope"};
    QVERIFY(!setup.toRequest(request, error));
    QVERIFY2(error.contains("'nope'") && error.contains("adaround"), qPrintable(error));
    setup.quantizer.remedies = {"smoothquant=2"};
    QVERIFY(!setup.toRequest(request, error));
    QVERIFY2(error.contains("[0, 1]"), qPrintable(error));
}

void TestSetupRemedies::sessionAppliesSmoothQuant() {
    double sqnr[2] = {0, 0};
    for (int remedied = 0; remedied < 2; ++remedied) {
        AnalysisSetup setup = vitSetup();
        if (remedied) setup.quantizer.remedies = {"smoothquant"};
        ql::ui::AnalysisRequest request;
        QString error;
        QVERIFY2(setup.toRequest(request, error), qPrintable(error));
        request.measureLatency = false;
        request.threads = 2;
        auto session = ql::ui::createAnalysisSession(request);
        QVERIFY2(session, session ? "" : session.status().message().c_str());
        sqnr[remedied] = (*session)->report().outputs.at(0).sqnrDb;
        // The smoothed float model is the session's float side: the token mean's scale is an
        // inserted Mul.
        QCOMPARE((*session)->floatGraph().findNode("/ReduceMean_output_0_smooth") != nullptr,
                 remedied == 1);
    }
    qInfo("per-tensor int8 output SQNR on the calibration images: %.2f -> %.2f dB", sqnr[0],
          sqnr[1]);
    QVERIFY(sqnr[1] > sqnr[0] + 10.0);
}

void TestSetupRemedies::sessionRoundsAdaptively() {
    double sqnr[2] = {0, 0};
    std::unique_ptr<ql::analysis::AnalysisSession> rounded;
    for (int adaptive = 0; adaptive < 2; ++adaptive) {
        AnalysisSetup setup = remedy_setups::fashionMobileNet(100);
        if (adaptive) setup.quantizer.remedies = {"adaround"};
        ql::ui::AnalysisRequest request;
        QString error;
        QVERIFY2(setup.toRequest(request, error), qPrintable(error));
        request.measureLatency = false;
        request.threads = 2;
        QStringList stages;
        auto session =
            ql::ui::createAnalysisSession(request, [&](const std::string &stage, int, int) {
                if (!stages.contains(QString::fromStdString(stage)))
                    stages << QString::fromStdString(stage);
                return true;
            });
        QVERIFY2(session, session ? "" : session.status().message().c_str());
        sqnr[adaptive] = (*session)->report().outputs.at(0).sqnrDb;
        QCOMPARE(stages.contains("adaround"), adaptive == 1);
        QCOMPARE((*session)->adaRounding().has_value(), adaptive == 1);
        if (adaptive) rounded = std::move(*session);
    }
    qInfo("per-tensor int8 output SQNR on the test images: %.2f -> %.2f dB", sqnr[0], sqnr[1]);
    QVERIFY(sqnr[1] > sqnr[0] + 3.0);

    // A layer AdaRound rounded, toggled to fp32, runs on its float weights; back to int8, on
    // AdaRound's again (the same figures as before the toggle).
    const std::string layer = "/features/features.0/Conv";
    const auto &report = *rounded->adaRounding();
    QVERIFY(std::any_of(report.layers.begin(), report.layers.end(), [&](const auto &l) {
        return l.node == layer && !l.keptNearest && l.changed > 0;
    }));
    auto toggled = rounded->setFp32Layers({layer});
    QVERIFY2(toggled, toggled ? "" : toggled.status().message().c_str());
    const ql::Node *conv = rounded->quantGraph().findNode(layer);
    QVERIFY(conv != nullptr);
    QCOMPARE(rounded->quantGraph().initializer(conv->inputs[1])->toFloatVector(),
             rounded->floatGraph()
                 .initializer(rounded->floatGraph().findNode(layer)->inputs[1])
                 ->toFloatVector());
    auto back = rounded->setFp32Layers({});
    QVERIFY2(back, back ? "" : back.status().message().c_str());
    QVERIFY(std::abs(back->outputs.at(0).sqnrDb - sqnr[1]) < 1e-6);
}

// The setup's bias correction: every int8 Conv / Gemm corrected from the start (each one a
// per-layer remedy the user can switch off), the output SQNR on test images up as `calib-lab`
// measures it on the same calibration.
void TestSetupRemedies::sessionCorrectsEveryBias() {
    double sqnr[2] = {0, 0};
    for (int corrected = 0; corrected < 2; ++corrected) {
        AnalysisSetup setup = remedy_setups::fashionMobileNet(250);
        if (corrected) setup.quantizer.remedies = {"bias-correction"};
        ql::ui::AnalysisRequest request;
        QString error;
        QVERIFY2(setup.toRequest(request, error), qPrintable(error));
        QCOMPARE(request.correctBiases, corrected == 1);
        request.measureLatency = false;
        request.threads = 2;
        auto session = ql::ui::createAnalysisSession(request);
        QVERIFY2(session, session ? "" : session.status().message().c_str());
        sqnr[corrected] = (*session)->report().outputs.at(0).sqnrDb;
        size_t offered = 0, marked = 0;
        for (const auto &row : (*session)->report().layers) {
            const auto remedies = (*session)->remediesOffered(row.name);
            offered += std::count(remedies.begin(), remedies.end(),
                                  ql::analysis::LayerRemedy::BiasCorrection);
            marked += std::count(row.remedies.begin(), row.remedies.end(), "bias-correction");
        }
        QVERIFY(offered >= 10);
        QCOMPARE((*session)->layerRemedies().biasCorrection.size(), corrected ? offered : 0);
        QCOMPARE(marked, corrected ? offered : 0);
    }
    qInfo("per-tensor int8 output SQNR on the test images: %.2f -> %.2f dB", sqnr[0], sqnr[1]);
    QVERIFY(sqnr[1] > sqnr[0] + 3.0);
}

QTEST_MAIN(TestSetupRemedies)
#include "tst_setup_remedies.moc"
