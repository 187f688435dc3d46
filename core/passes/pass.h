// Pass: one pre-segmentation rewrite of a Fusion. Each pass has a name (the
// one --disable-pass takes), records every rewrite it makes as a line a user
// can read, and may be switched off.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/ir/fusion.h"
#include "core/passes/pass_options.h"

namespace fuserlab::passes {

//! What one pass did, for the report: its rewrites in order and the fusion
//! as printed after it ran (the `fusion_ir_preseg` dump of the last pass).
struct PassRecord {
  std::string name;
  bool enabled = true;
  std::vector<std::string> rewrites;
  //! printFusionIr after the pass (if enabled and asked for, see runPasses)
  std::string fusionAfter;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  //! One sentence: what the pass does and why.
  virtual std::string_view description() const = 0;
  //! Rewrites `fusion` in place; appends each rewrite to `record.rewrites`.
  virtual void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const = 0;
};

}  // namespace fuserlab::passes
