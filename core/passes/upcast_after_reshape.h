// UpcastAfterReshapePass: `y = reshape(cast(x, float))` becomes
// `y = cast(reshape(x), float)`. A cast is elementwise and a reshape only
// renames positions, so the values are the same; but the reshape of a fusion
// input is a view (no kernel, no copy), and the upcast after it can be
// privatized into each segment that reads it. Left before the reshape, the
// widened tensor is what segments pass: a GroupNorm of fp16 [32, 320, 64,
// 64] reshaped to [32, 32, 40960] wrote and read 160 MB of float between
// three kernels where the fp16 input is 80 MB (issue 45, item 2).
// Only casts that widen a floating dtype, used only by the reshape and not
// fusion outputs, move; a reshape output that is a fusion output stays.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class UpcastAfterReshapePass final : public Pass {
 public:
  std::string_view name() const override { return "upcast_after_reshape"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
