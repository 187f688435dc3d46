#include "core/passes/pipeline.h"

#include "core/ir/cloner.h"
#include "core/ir/error.h"
#include "core/ir/printer.h"
#include "core/passes/allocation_order_propagation.h"
#include "core/passes/consecutive_cast.h"
#include "core/passes/decompose_reshardings.h"
#include "core/passes/finalize_multidevice_domains.h"
#include "core/passes/gather_through_pointwise.h"
#include "core/passes/mark_aliases_prepare.h"
#include "core/passes/online_logsumexp.h"
#include "core/passes/propagate_shardings.h"
#include "core/passes/remove_empty.h"
#include "core/passes/reorder_sharded_axis.h"
#include "core/passes/upcast_after_reshape.h"

namespace fuserlab::passes {

// The order, and why (nvFuser's pre-segmenter runs the same passes in the same
// relative order):
//  1. remove_empty first: replacing empty tensors by `full` removes whole
//     subgraphs, which the later passes then need not look at, and an empty
//     tensor's meta ops would otherwise be bookended for nothing.
//  2. consecutive_cast before bookending: folding a cast pair can leave a
//     tensor with one use fewer or join two meta chains, which changes where
//     mark_aliases_prepare cuts; cast chains must not be split by the
//     segment_sets it inserts either.
//  2b. upcast_after_reshape after consecutive_cast (a folded pair can leave
//     an upcast right before a reshape) and before bookending, which then
//     sees the reshape of an input as a view.
//  2c. online_logsumexp, then gather_through_pointwise (FuserLab's own, for
//     softmax statistics and cross-entropy): the first turns log(sum(exp(x -
//     max(x)))) into logsumexp(x) - max(x), leaving the log-softmax an
//     elementwise expression of x and per-row values, which the second then
//     picks at a label without computing it whole. Before bookending, which
//     would otherwise cut at tensors these rewrites remove.
//  3. the multi-device passes (no-ops without device meshes), in seed 004's
//     order: propagate_shardings gives every tensor a mesh and sharding;
//     decompose_reshardings then sees every producer/consumer pair's
//     shardings and inserts the resharding sets; reorder_sharded_axis needs
//     those sets; finalize_multidevice_domains checks the result and turns
//     the loop domains (reordered) into allocation domains. They run before
//     the bookending, which must not cut a resharding set from its tensors.
//  4. mark_aliases_prepare on the simplified graph, inserting the
//     segment_sets that make meta ops kernel-free segments.
//  5. allocation_order_propagation last: it sets the layout of outputs, and
//     must see the final graph (axes are traced through the segment_set
//     copies), while nothing before it depends on output layouts.
const std::vector<std::unique_ptr<Pass>>& allPasses() {
  static const std::vector<std::unique_ptr<Pass>> passes = [] {
    std::vector<std::unique_ptr<Pass>> list;
    list.push_back(std::make_unique<RemoveEmptyPass>());
    list.push_back(std::make_unique<ConsecutiveCastPass>());
    list.push_back(std::make_unique<UpcastAfterReshapePass>());
    list.push_back(std::make_unique<OnlineLogSumExpPass>());
    list.push_back(std::make_unique<GatherThroughPointwisePass>());
    list.push_back(std::make_unique<PropagateShardingsPass>());
    list.push_back(std::make_unique<DecomposeReshardingsPass>());
    list.push_back(std::make_unique<ReorderShardedAxisPass>());
    list.push_back(std::make_unique<FinalizeMultideviceDomainsPass>());
    list.push_back(std::make_unique<MarkAliasesPreparePass>());
    list.push_back(std::make_unique<AllocationOrderPropagationPass>());
    return list;
  }();
  return passes;
}

bool isPassName(std::string_view name) {
  for (const auto& pass : allPasses()) {
    if (pass->name() == name) return true;
  }
  return false;
}

std::unique_ptr<ir::Fusion> runPasses(const ir::Fusion& fusion, const PassOptions& options,
                                      std::vector<PassRecord>* records, bool printAfterEachPass) {
  std::unique_ptr<ir::Fusion> result = ir::cloneFusion(fusion);
  const size_t outputCount = result->outputs().size();
  // Every pass records each rewrite it makes, so a pass without rewrites
  // left the fusion as it was: its dump is the previous one, not reprinted
  // (printing is most of the pipeline's time when nothing changes).
  std::string printed;
  for (const auto& pass : allPasses()) {
    PassRecord record;
    record.name = std::string(pass->name());
    record.enabled = options.passEnabled(pass->name());
    if (record.enabled) {
      pass->run(*result, options, record);
      FL_ASSERT(result->outputs().size() == outputCount, "pass ", pass->name(),
                " changed the number of fusion outputs from ", outputCount, " to ",
                result->outputs().size());
      if (printAfterEachPass) {
        if (printed.empty() || !record.rewrites.empty()) {
          printed = ir::printFusionIr(*result);
        }
        record.fusionAfter = printed;
      }
    }
    if (records != nullptr) records->push_back(std::move(record));
  }
  return result;
}

}  // namespace fuserlab::passes
