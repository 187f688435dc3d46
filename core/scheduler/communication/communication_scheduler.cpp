#include "core/scheduler/communication/communication_scheduler.h"

#include <vector>

#include "core/ir/error.h"
#include "core/multidevice/communication.h"
#include "core/multidevice/sharding.h"
#include "core/scheduler/expr_summary.h"

namespace fuserlab::scheduler {
namespace {

// The segment's tensor exprs (scalar exprs computing extents do not count).
std::vector<const ir::Expr*> tensorExprs(const ir::Fusion& segment) {
  std::vector<const ir::Expr*> out;
  for (const ir::Expr* expr : segment.exprsForOutputs()) {
    for (const ir::Val* val : expr->outputs()) {
      if (val->as<ir::TensorView>() != nullptr) {
        out.push_back(expr);
        break;
      }
    }
  }
  return out;
}

// The one resharding set, if that is all the segment computes.
const ir::Expr* soleResharding(const ir::Fusion& segment, std::string* why = nullptr) {
  const std::vector<const ir::Expr*> exprs = tensorExprs(segment);
  if (exprs.size() != 1 || !multidevice::isReshardingSet(exprs[0])) {
    if (why != nullptr) {
      *why = exprs.empty() ? "the segment computes nothing"
             : exprs.size() > 1
                 ? "the segment has " + std::to_string(exprs.size()) +
                       " exprs; communication takes one resharding "
                       "set alone"
                 : "its expr " + exprSummary(*exprs[0]) + " does not change the sharding";
    }
    return nullptr;
  }
  return exprs[0];
}

}  // namespace

std::optional<std::string> reshardingRefusal(const ir::Fusion& segment) {
  // Every check of every scheduler passes here: a plain walk over the
  // segment's exprs (it holds only its group's), no topological sort.
  for (const auto& owned : segment.exprs()) {
    const ir::Expr* expr = owned.get();
    if (!multidevice::isReshardingSet(expr)) continue;
    const auto* in = expr->input(0)->as<ir::TensorView>();
    const auto* out = expr->output(0)->as<ir::TensorView>();
    std::string collective;
    try {
      collective = std::string(multidevice::toString(multidevice::classifyResharding(in, out)));
    } catch (const UserError& e) {
      collective = "unsupported: " + std::string(e.what());
    }
    return exprSummary(*expr) + " moves data between devices (" + collective + ", " +
           multidevice::describeSharding(in) + " -> " + multidevice::describeSharding(out) +
           "); only the communication scheduler takes a resharding";
  }
  return std::nullopt;
}

std::optional<std::string> CommunicationScheduler::rejectCompileTime(
    const ir::Fusion& segment) const {
  std::string why;
  const ir::Expr* expr = soleResharding(segment, &why);
  if (expr == nullptr) return why;
  try {
    multidevice::classifyResharding(expr->input(0)->as<ir::TensorView>(),
                                    expr->output(0)->as<ir::TensorView>());
  } catch (const UserError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

std::optional<std::string> CommunicationScheduler::rejectRunTime(
    const ir::Fusion& segment, const SegmentRuntimeInfo& info) const {
  FL_ASSERT(info.evaluator != nullptr, "communication's run-time check needs bound sizes");
  const ir::Expr* expr = soleResharding(segment);
  FL_ASSERT(expr != nullptr, "rejectRunTime after a failed compile-time check");
  for (const ir::Val* val : {expr->input(0), expr->output(0)}) {
    const auto* tv = val->as<ir::TensorView>();
    const ir::IterDomain* sharded = multidevice::shardedLogicalId(tv);
    if (sharded == nullptr) continue;
    const int64_t extent = info.evaluator->evaluateExtent(sharded);
    const int64_t devices = tv->deviceMesh().size();
    if (extent % devices != 0) {
      return tv->name() + "'s sharded axis " + sharded->toString() + " has extent " +
             std::to_string(extent) + ", which its " + std::to_string(devices) +
             " devices do not divide";
    }
  }
  return std::nullopt;
}

HeuristicParams CommunicationScheduler::computeHeuristics(const ir::Fusion& segment,
                                                          const SegmentRuntimeInfo& info) const {
  return std::monostate{};
}

std::optional<std::string> CommunicationScheduler::rejectParams(
    const ir::Fusion& segment, const SegmentRuntimeInfo& info,
    const HeuristicParams& params) const {
  if (std::holds_alternative<std::monostate>(params)) return std::nullopt;
  return "the communication scheduler has no params";
}

report::Json CommunicationScheduler::properties(const ir::Fusion& segment,
                                                const SegmentRuntimeInfo& info) const {
  report::Json j = report::Json::object();
  const ir::Expr* expr = soleResharding(segment);
  if (expr == nullptr) return j;
  const auto* in = expr->input(0)->as<ir::TensorView>();
  const auto* out = expr->output(0)->as<ir::TensorView>();
  const multidevice::CommunicationType type = multidevice::classifyResharding(in, out);
  j.set("collective", std::string(multidevice::toString(type)));
  j.set("mesh", out->deviceMesh().toString());
  j.set("input_sharding", multidevice::describeSharding(in));
  j.set("output_sharding", multidevice::describeSharding(out));
  j.set("input_sharded_axis", multidevice::shardedAxis(in));
  j.set("output_sharded_axis", multidevice::shardedAxis(out));
  if (info.evaluator != nullptr) {
    // What one device holds of the input: its local shard (a partial tensor
    // is whole-shaped on every device).
    int64_t elements = 1;
    for (const ir::IterDomain* id : in->logicalNoReductions()) {
      elements *= info.evaluator->evaluateExtent(id);
    }
    const int64_t axis = multidevice::shardedAxis(in);
    if (axis >= 0) elements /= in->deviceMesh().size();
    j.set("bytes_per_device", elements * static_cast<int64_t>(ir::sizeInBytes(in->dtype())));
  }
  return j;
}

}  // namespace fuserlab::scheduler
