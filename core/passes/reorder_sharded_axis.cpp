#include "core/passes/reorder_sharded_axis.h"

#include <algorithm>

#include "core/multidevice/communication.h"
#include "core/multidevice/sharding.h"

namespace fuserlab::passes {

std::string_view ReorderShardedAxisPass::description() const {
  return "moves the DIDx axis of a resharding set's input and output "
         "outermost, so each device's shard is contiguous for the collective";
}

void ReorderShardedAxisPass::run(ir::Fusion& fusion, const PassOptions&, PassRecord& record) const {
  for (ir::Expr* expr : fusion.exprsForOutputs()) {
    if (!multidevice::isReshardingSet(expr)) continue;
    for (ir::Val* val : {expr->input(0), expr->output(0)}) {
      auto* tv = val->as<ir::TensorView>();
      ir::IterDomain* did = multidevice::deviceLoopAxis(tv);
      if (did == nullptr || tv->loop().front() == did) continue;
      const auto& loop = tv->loop();
      const int64_t at = std::find(loop.begin(), loop.end(), did) - loop.begin();
      std::vector<int64_t> order = {at};
      for (int64_t i = 0; i < static_cast<int64_t>(loop.size()); ++i) {
        if (i != at) order.push_back(i);
      }
      tv->reorderLoop(order);
      record.rewrites.push_back(tv->name() + ": " + did->toString() +
                                " moved outermost (loop axis " + std::to_string(at) +
                                " -> 0) for " + expr->output(0)->name() + " = set(" +
                                expr->input(0)->name() + ")");
    }
  }
}

}  // namespace fuserlab::passes
