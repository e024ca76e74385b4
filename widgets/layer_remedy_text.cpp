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
    return remedy == analysis::LayerRemedy::AdaRound ? tr("Round Adaptively (AdaRound)")
                                                     : tr("Correct Bias");
}

QString layerRemedyShortName(analysis::LayerRemedy remedy) {
    return remedy == analysis::LayerRemedy::AdaRound ? tr("AdaRound") : tr("bias corr.");
}

QString layerRemedyExplanation(analysis::LayerRemedy remedy) {
    return remedy == analysis::LayerRemedy::AdaRound
               ? tr("Rounds each weight up or down so that the layer's output on the calibration "
                    "data is reconstructed best, instead of to nearest; the layer stays int8.")
               : tr("Subtracts the mean error of each output channel, measured on the calibration "
                    "data, from the layer's bias; the layer stays int8.");
}

QString layerRemedyUnavailable(const analysis::LayerReport &row, analysis::LayerRemedy remedy,
                               bool inAppQuantization) {
    if (!inAppQuantization)
        return tr("Needs the float model quantized in the app (File > Quantize in App…).");
    if (row.precision != "int8") return tr("The layer runs in fp32.");
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
            names << layerRemedyShortName(*remedy);
    return names.join(QStringLiteral(" + "));
}

}  // namespace ql::ui
