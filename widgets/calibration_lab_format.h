#pragma once
// The calibration lab as JSON: what `quantlens calib-lab --json` writes, what the project file
// stores and what the lab page displays (README, "Calibration lab", documents the schema).

#include <QJsonObject>
#include <QString>

#include "analysis/calibration_lab/calibration_lab.h"

namespace ql::ui {

// The lab as JSON (resources/docs/schema/calib-lab.schema.json, `schema_version` below).
constexpr int kCalibrationLabSchemaVersion = 1;
QJsonObject calibrationLabJson(const ql::analysis::CalibrationLabResult &lab,
                               const ql::analysis::CalibrationLabOptions &options,
                               const QString &floatModel);

// The command that rebuilds a run's model outside the lab.
QString reproduceCommand(const ql::analysis::CalibrationRunSpec &spec,
                         const ql::analysis::CalibrationLabOptions &options,
                         const QString &floatModel);

}  // namespace ql::ui
