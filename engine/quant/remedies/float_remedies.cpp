#include "quant/remedies/float_remedies.h"

#include <cstdlib>
#include <sstream>

namespace ql::quant {

Result<std::optional<FloatRemedy>> parseFloatRemedy(const std::string &text) {
    FloatRemedy remedy;
    if (text == "cle") return std::optional<FloatRemedy>(remedy);
    remedy.kind = FloatRemedy::Kind::SmoothQuant;
    if (text == "smoothquant") return std::optional<FloatRemedy>(remedy);
    const std::string prefix = "smoothquant=";
    if (text.compare(0, prefix.size(), prefix) != 0) return std::optional<FloatRemedy>();
    const std::string value = text.substr(prefix.size());
    char *end = nullptr;
    remedy.alpha = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(remedy.alpha >= 0.0 && remedy.alpha <= 1.0))
        return Status::badInput("remedy '" + text + "': ALPHA must be a number in [0, 1]");
    return std::optional<FloatRemedy>(remedy);
}

std::string floatRemedyName(const FloatRemedy &remedy) {
    if (remedy.kind == FloatRemedy::Kind::CrossLayerEqualization) return "cle";
    std::ostringstream s;
    s << "smoothquant=" << remedy.alpha;
    return s.str();
}

Result<FloatRemedyReport> applyFloatRemedies(Graph &prepared,
                                             const std::vector<FloatRemedy> &remedies,
                                             const BatchSourceOpener &calibration, int threads,
                                             const ProgressCallback &progress) {
    FloatRemedyReport report;
    for (const FloatRemedy &remedy : remedies) {
        if (remedy.kind == FloatRemedy::Kind::CrossLayerEqualization) {
            if (report.equalization) continue;
            auto equalized = equalizeCrossLayer(prepared);
            if (!equalized) return equalized.status().withContext(prepared.sourcePath);
            report.equalization = std::move(*equalized);
        } else {
            if (report.smoothing) continue;
            SmoothQuantOptions options;
            options.alpha = remedy.alpha;
            options.threads = threads;
            options.progress = progress;
            auto smoothed = smoothQuant(prepared, calibration, options);
            if (!smoothed) return smoothed.status();  // names the model where it matters
            report.smoothing = std::move(*smoothed);
        }
        report.applied.push_back(remedy);
    }
    return report;
}

}  // namespace ql::quant
