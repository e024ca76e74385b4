#pragma once
// Reading a QuantLens skip-list (`--skip-list`, File > Export > Skip-List…'s quantlens dialect):
// {"model": "...", "fp32_nodes": ["name", ...], "reason": {"name": "why"}, and optionally
// "int16_nodes": ["name", ...]}. Files come from users and the web: every wrong type is a
// one-line error naming the file.

#include <QString>

#include "core/status.h"
#include "quant/quantization_plan.h"

// Adds the nodes to `options.excludedNodes` (and their reasons) and `options.int16Nodes`; a list
// written for another model
// file than `modelPath` is a warning on stderr.
ql::Status readSkipListFile(const QString &path, const QString &modelPath,
                            ql::quant::QuantizationOptions &options);
