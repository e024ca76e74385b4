#include "layer_remedy_text.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

namespace ql::ui {
namespace {

QString tr(const char *text) {
    return QCoreApplication::translate("ql::ui::LayerRemedyText", text);
}

}  // namespace

QString layerRemedyAction(analysis::LayerRemedy remedy) {
    switch (remedy) {
        case analysis::LayerRemedy::AdaRound:
            return tr("Round Adaptively (AdaRound)");
        case analysis::LayerRemedy::BiasCorrection:
            return tr("Correct Bias");
        case analysis::LayerRemedy::SixteenBit:
            break;
    }
    return tr("Quantize with 16 Bits");
}

QString layerRemedyShortName(analysis::LayerRemedy remedy) {
    switch (remedy) {
        case analysis::LayerRemedy::AdaRound:
            return tr("AdaRound");
        case analysis::LayerRemedy::BiasCorrection:
            return tr("bias corr.");
        case analysis::LayerRemedy::SixteenBit:
            break;
    }
    return tr("16-bit");
}

QString layerRemedyExplanation(analysis::LayerRemedy remedy) {
    switch (remedy) {
        case analysis::LayerRemedy::AdaRound:
            return tr(
                "Rounds each weight up or down so that the layer's output on the "
                "calibration data is reconstructed best, instead of to nearest; the layer "
                "stays int8.");
        case analysis::LayerRemedy::BiasCorrection:
            return tr(
                "Subtracts the mean error of each output channel, measured on the "
                "calibration data, from the layer's bias; the layer stays int8.");
        case analysis::LayerRemedy::SixteenBit:
            break;
    }
    return tr(
        "Quantizes the layer's activations with 16 bits (uint16) and its weights with 16 "
        "bits per channel (int16), from the same calibration ranges: ONNX Runtime's QUInt16 "
        "/ QInt16 overrides. The model stays integer; here the layer runs through the "
        "float reference path.");
}

QString layerRemedyUnavailable(const analysis::LayerReport &row, analysis::LayerRemedy remedy,
                               bool inAppQuantization) {
    if (!inAppQuantization)
        return tr("Needs the float model quantized in the app (File > Quantize in App…).");
    // 16 bits for any quantized layer (also one that reads another's 16-bit output), and for one
    // the user keeps in fp32 (asking takes it out of fp32).
    if (remedy == analysis::LayerRemedy::SixteenBit)
        return row.precision != "fp32" || row.fp32Requested
                   ? QString()
                   : tr("The model runs the layer in fp32.");
    if (row.precision != "int8")
        return row.precision == "fp32"
                   ? tr("The layer runs in fp32.")
                   : tr("The layer runs %1.").arg(QString::fromStdString(row.precision));
    const auto offered = analysis::remediesFor(row);
    if (std::find(offered.begin(), offered.end(), remedy) != offered.end()) return {};
    return remedy == analysis::LayerRemedy::AdaRound
               ? tr("AdaRound rounds the weights of Conv, Gemm and MatMul layers.")
               : tr("Bias correction moves the bias of Conv, ConvTranspose and Gemm layers.");
}

QString appliedRemediesText(const analysis::LayerReport &row) {
    QStringList names;
    for (const std::string &name : row.remedies)
        if (const auto remedy = analysis::parseLayerRemedy(name))
            if (*remedy != analysis::LayerRemedy::SixteenBit)  // the precision says it
                names << layerRemedyShortName(*remedy);
    return names.join(QStringLiteral(" + "));
}

}  // namespace ql::ui
