#pragma once
// Every file the app writes (exports, projects, reports, skip-lists) goes through QSaveFile: a
// temporary file beside the target, renamed over it once complete, so a failed write (full disk,
// no folder, no permission) never leaves a truncated file where a good one was.

#include <QByteArray>
#include <QString>

#include "core/status.h"

namespace ql::ui {

// ErrorKind::Io with one line naming the file on failure.
Status saveFile(const QString &path, const QByteArray &bytes);

}  // namespace ql::ui
