#pragma once
// The words the views use for per-layer remedies (analysis/session/layer_remedies.h): menu
// entries, check boxes, the table's precision cell and tool tips, translated.

#include <QString>

#include "analysis/session/layer_remedies.h"
#include "analysis/suite/numeric_suite.h"

namespace ql::ui {

// "Round Adaptively (AdaRound)", "Correct Bias": an action on one layer.
QString layerRemedyAction(analysis::LayerRemedy remedy);
// "AdaRound", "bias corr.": in the precision cell ("int8 + AdaRound").
QString layerRemedyShortName(analysis::LayerRemedy remedy);
// What the remedy does, one sentence (status tips, tool tips).
QString layerRemedyExplanation(analysis::LayerRemedy remedy);
// Why a layer cannot take it now: "" when it can.
QString layerRemedyUnavailable(const analysis::LayerReport &row, analysis::LayerRemedy remedy,
                               bool inAppQuantization);
// The remedies the row took, joined: "AdaRound + bias corr." ("" for none); 16 bits are left to
// the precision ("int16").
QString appliedRemediesText(const analysis::LayerReport &row);

}  // namespace ql::ui
