// Dead code left behind by a rewrite: when a pass redirects the uses of a
// tensor, the exprs that computed it may no longer feed any output. Removing
// them keeps every Val's uses() exact, which later passes and the segmenter
// count (a tensor "used once" must not count a dead use).
#pragma once

#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::passes {

//! Removes the definitions of `vals` that no longer feed a fusion output or a
//! live expr, then their producers in turn. Only exprs whose outputs are all
//! tensors are removed: scalar exprs may define extents. Returns how many
//! exprs were removed.
int removeDeadDefinitions(ir::Fusion& fusion, std::vector<ir::Val*> vals);

}  // namespace fuserlab::passes
