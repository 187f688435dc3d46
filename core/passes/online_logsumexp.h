// OnlineLogSumExpPass: the statistics of a softmax or log-softmax,
//   M = max(x, axes);  S = sum(exp(x - broadcast(M)), axes)
// take two passes over x: the max, then the exps shifted by it. A running
// log-sum-exp (ReductionOpType::LogSumExp: the max so far and the sum
// rescaled when it grows) takes one, beside the max in the same pass:
//   L = logsumexp(x, axes);  log(S) -> L - M;  any other use of S -> exp(L - M)
// The exps of x are then no longer computed for S, and a reduction kernel
// reads x once where a normalization kernel kept a row resident between the
// two passes (cross-entropy over a 32,064 vocabulary, issue 45 item 3).
// Only where the exps are used by the sum alone (a softmax output that
// reads them keeps its two passes), x is Float or Double (the ops in a
// narrower dtype round after each step, which L would not), and M is
// broadcast back along exactly the reduced axes.
#pragma once

#include "core/passes/pass.h"

namespace fuserlab::passes {

class OnlineLogSumExpPass final : public Pass {
 public:
  std::string_view name() const override { return "online_logsumexp"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
