// Per-layer remedies in an interactive session (issue 36: "toggled per layer with undo,
// re-quantized incrementally like an fp32 toggle"), on the Fashion-MNIST MobileNet fixture with
// per-tensor weights, calibrated on 64 images and evaluated on 1,000 test images it never saw:
//  * AdaRound switched on for every layer gives the figures of AdaRound chosen for the whole
//    model at creation, and raises the output SQNR; switched off again, the session comes back to
//    the figures it was created with (nothing re-measured differs);
//  * bias correction of one layer removes most of that layer's per-channel mean error on the test
//    images, and the row says what it did;
//  * a layer kept in fp32 takes no remedy until it runs int8 again;
//  * bad requests (a layer that does not take the remedy, a quantized model file) are refused
//    with one line naming the layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/session/analysis_session.h"
#include "onnx_io/model_loader.h"
#include "quant/qdq_builder.h"

using namespace ql;
using namespace ql::analysis;

namespace {

std::string remedyData(const std::string &name) {
    return std::string(std::getenv("QL_TEST_DATA")) + "/remedies/" + name;
}

struct Session {
    std::unique_ptr<AnalysisSession> session;
    double sqnr() const { return session->report().outputs.at(0).sqnrDb; }
    const LayerReport &row(const std::string &name) const {
        for (const LayerReport &row : session->report().layers)
            if (row.name == name) return row;
        throw std::runtime_error("no row " + name);
    }
};

Session inAppSession(bool adaRoundAll = false) {
    auto model = loadModel(remedyData("fashion_mobilenet_balanced.onnx"));
    EXPECT_TRUE(model) << model.status().message();
    auto data = evaluationDataFromFiles(*model, {remedyData("fashion_test.npy")}, 250);
    EXPECT_TRUE(data) << data.status().message();
    auto calibration = evaluationDataFromFiles(*model, {remedyData("fashion_calib.npy")}, 16);
    EXPECT_TRUE(calibration) << calibration.status().message();
    SessionOptions options;
    options.suite.threads = 2;
    options.suite.isolated = false;  // not read here: the cumulative figures are
    options.quantizer.perChannelWeights = false;
    options.calibrationBatches = std::move(calibration->batches);
    if (adaRoundAll) options.adaRound.emplace();
    auto session = AnalysisSession::create(quant::prepareFloatGraph(*model, true), std::nullopt,
                                           std::move(*data), std::move(options));
    EXPECT_TRUE(session) << session.status().message();
    return {std::move(*session)};
}

double rms(const std::vector<double> &values) {
    double sum = 0;
    for (double v : values) sum += v * v;
    return values.empty() ? 0.0 : std::sqrt(sum / double(values.size()));
}

bool hasNote(const LayerReport &row, const std::string &start) {
    return std::any_of(row.notes.begin(), row.notes.end(),
                       [&](const std::string &note) { return note.rfind(start, 0) == 0; });
}

}  // namespace

TEST(LayerRemedies, AdaRoundPerLayerMatchesWholeModelAndUndoes) {
    Session s = inAppSession();
    const double nearest = s.sqnr();
    LayerRemedies all;
    for (const LayerReport &row : s.session->report().layers) {
        const auto offered = s.session->remediesOffered(row.name);
        if (std::count(offered.begin(), offered.end(), LayerRemedy::AdaRound))
            all.adaRound.insert(row.name);
    }
    ASSERT_GE(all.adaRound.size(), 10u);
    auto rounded = s.session->setLayerRemedies(all);
    ASSERT_TRUE(rounded) << rounded.status().message();
    const double adaptive = s.sqnr();
    std::printf("per-tensor output SQNR on 1,000 test images: nearest %.2f dB, AdaRound %.2f dB\n",
                nearest, adaptive);
    EXPECT_GT(adaptive, nearest + 3.0);

    // The same layers rounded for the whole model at creation: the same weights, the same figure
    // (within the summation-order noise of the session's runs).
    Session whole = inAppSession(true);
    EXPECT_NEAR(whole.sqnr(), adaptive, 0.01);
    EXPECT_EQ(whole.session->layerRemedies().adaRound.size() +
                  size_t(std::count_if(whole.session->adaRounding()->layers.begin(),
                                       whole.session->adaRounding()->layers.end(),
                                       [](const quant::RoundedLayer &l) { return l.keptNearest; })),
              all.adaRound.size());

    // Rows say what AdaRound did; a layer that kept nearest rounding says so and took nothing.
    size_t marked = 0;
    for (const LayerReport &row : s.session->report().layers)
        if (std::count(row.remedies.begin(), row.remedies.end(), "adaround")) {
            ++marked;
            EXPECT_TRUE(hasNote(row, "AdaRound: ")) << row.name;
        } else if (all.adaRound.count(row.name)) {
            EXPECT_TRUE(hasNote(row, "AdaRound kept rounding to nearest")) << row.name;
        }
    EXPECT_EQ(marked, whole.session->layerRemedies().adaRound.size());

    // Undo: back to the model as created, the same figures.
    auto undone = s.session->setLayerRemedies({});
    ASSERT_TRUE(undone) << undone.status().message();
    EXPECT_NEAR(s.sqnr(), nearest, 1e-9);
    for (const LayerReport &row : s.session->report().layers) EXPECT_TRUE(row.remedies.empty());
}

TEST(LayerRemedies, BiasCorrectionOfOneLayerOnUnseenImages) {
    Session s = inAppSession();
    // The int8 layer (taking bias correction) with the largest per-channel mean error relative
    // to its noise-free output: the one a user would pick from the table.
    std::string layer;
    double before = 0;
    for (const LayerReport &row : s.session->report().layers) {
        const auto offered = s.session->remediesOffered(row.name);
        if (!std::count(offered.begin(), offered.end(), LayerRemedy::BiasCorrection)) continue;
        const double error = rms(row.outputChannelMeanError);
        if (error > before) before = error, layer = row.name;
    }
    ASSERT_FALSE(layer.empty());
    LayerRemedies remedies;
    remedies.biasCorrection = {layer};
    auto corrected = s.session->setLayerRemedies(remedies);
    ASSERT_TRUE(corrected) << corrected.status().message();
    const LayerReport &row = s.row(layer);
    const double after = rms(row.outputChannelMeanError);
    std::printf("%s: per-channel mean error (RMS) on the test images %.4g -> %.4g\n", layer.c_str(),
                before, after);
    EXPECT_LT(after, 0.5 * before);
    EXPECT_EQ(row.remedies, std::vector<std::string>{"bias-correction"});
    EXPECT_TRUE(hasNote(row, "bias correction: ")) << layer;

    // Kept in fp32, the layer takes no remedy (and says it waits); back in int8, it does again.
    auto fp32 = s.session->setFp32Layers({layer});
    ASSERT_TRUE(fp32) << fp32.status().message();
    EXPECT_EQ(s.row(layer).precision, "fp32");
    EXPECT_TRUE(s.row(layer).remedies.empty());
    EXPECT_TRUE(hasNote(s.row(layer), "bias correction applies again")) << layer;
    auto back = s.session->setFp32Layers({});
    ASSERT_TRUE(back) << back.status().message();
    EXPECT_NEAR(rms(s.row(layer).outputChannelMeanError), after, 1e-9 + 1e-6 * after);
    EXPECT_EQ(s.session->layerRemedies(), remedies);
}

TEST(LayerRemedies, RefusesWhatDoesNotApply) {
    Session s = inAppSession();
    std::string weightless;
    for (const LayerReport &row : s.session->report().layers)
        if (s.session->remediesOffered(row.name).empty()) weightless = row.name;
    ASSERT_FALSE(weightless.empty());
    const double sqnr = s.sqnr();
    LayerRemedies bad;
    bad.adaRound = {weightless};
    auto refused = s.session->setLayerRemedies(bad);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.status().kind(), ErrorKind::BadInput);
    EXPECT_NE(refused.status().message().find("'" + weightless + "'"), std::string::npos)
        << refused.status().message();
    bad.adaRound = {"no such layer"};
    EXPECT_FALSE(s.session->setLayerRemedies(bad));
    EXPECT_TRUE(s.session->layerRemedies().empty());
    EXPECT_EQ(s.sqnr(), sqnr);

    // A quantized model file: remedies need the float model.
    auto floatModel = loadModel(remedyData("fashion_mobilenet_balanced.onnx"));
    ASSERT_TRUE(floatModel);
    quant::QuantizationOptions q;
    auto stats = std::make_unique<quant::CalibrationStatistics>(quant::CalibrationOptions{});
    auto data = evaluationDataFromFiles(*floatModel, {remedyData("fashion_calib.npy")}, 16);
    ASSERT_TRUE(data);
    ASSERT_TRUE(quant::calibrate(*floatModel, data->batches, *stats));
    auto quantized = quant::quantizeGraph(*floatModel, *stats, q);
    ASSERT_TRUE(quantized);
    auto file = AnalysisSession::create(*floatModel, quantized->model, std::move(*data), {});
    ASSERT_TRUE(file) << file.status().message();
    LayerRemedies some;
    some.biasCorrection = {s.session->report().layers.front().name};
    auto notInApp = (*file)->setLayerRemedies(some);
    ASSERT_FALSE(notInApp);
    EXPECT_NE(notInApp.status().message().find("quantized in the app"), std::string::npos);
}
