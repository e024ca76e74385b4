#pragma once
// Frees what a finished piece of work built (execution plans, their buffers: hundreds of MB, and
// about 2 % of a mobilenet_v2 analysis to give back) on one helper thread, so that the caller goes
// on (prints, writes its report) while the memory goes back. Releases run in the order given,
// and all have finished before the process exits.

#include <memory>

namespace ql {

// Drops this reference on the helper thread; the objects go when their last reference does.
void releaseInBackground(std::shared_ptr<void> objects);

}  // namespace ql
