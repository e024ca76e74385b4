#pragma once
// Files the engine writes (models, .npy and .pb tensors) go to a temporary file beside the target
// and are renamed over it once complete: a failed or interrupted write never leaves a truncated
// file where a good one was.
#include <functional>
#include <ostream>
#include <string>

#include "core/status.h"

namespace ql {

// Calls `write` on a stream to a temporary file in the folder of `path`, then renames it to
// `path`. Errors (ErrorKind::Io) name `path`; the temporary file is removed on failure.
Status writeFileAtomically(const std::string &path,
                           const std::function<bool(std::ostream &)> &write);

}  // namespace ql
