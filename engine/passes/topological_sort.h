#pragma once

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

// Orders graph.nodes so every node comes after the producers of its inputs; keeps the file's
// order where it is already valid. Fails on cycles.
Status sortTopologically(Graph &graph);

}  // namespace ql
