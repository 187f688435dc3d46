#include "core/passes/decompose_reshardings.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/multidevice/axis_mapping.h"
#include "core/multidevice/communication.h"
#include "core/multidevice/sharding.h"
#include "core/ops/alias.h"

namespace fuserlab::passes {
namespace {

using multidevice::shardedLogicalId;

// A copy of `in` on its mesh, sharded on the axis at logical position
// `axis` of its non-reduction axes (-1: replicated).
ir::TensorView* reshardedCopy(ir::TensorView* in, int64_t axis) {
  ir::TensorView* copy = ops::set(in);
  copy->setDeviceMesh(in->deviceMesh());
  for (ir::IterDomain* id : copy->logical()) {
    id->parallelize(ir::ParallelType::Serial);
  }
  if (axis >= 0) {
    multidevice::shardOuter(copy, axis);
  }
  return copy;
}

std::string describeSet(const ir::TensorView* in, const ir::TensorView* out) {
  return out->name() + " = set(" + in->name() +
         "): " + std::string(multidevice::toString(multidevice::classifyResharding(in, out))) +
         " (" + multidevice::describeSharding(in) + " -> " + multidevice::describeSharding(out) +
         ")";
}

// The logical position (without reductions) of the axis of `in` that the
// consumer's sharding needs sharded, or -1 for replicated.
int64_t neededAxis(const ir::Expr* expr, size_t inputIndex, const ir::TensorView* out) {
  ir::IterDomain* outId = shardedLogicalId(out);
  if (outId == nullptr) return -1;
  ir::IterDomain* id = multidevice::mapToProducer(expr, inputIndex, outId);
  if (id == nullptr || id->isBroadcast()) return -1;
  const auto* in = expr->input(inputIndex)->as<ir::TensorView>();
  const auto& axes = in->logicalNoReductions();
  return std::find(axes.begin(), axes.end(), id) - axes.begin();
}

}  // namespace

std::string_view DecomposeReshardingsPass::description() const {
  return "inserts a set wherever an expr reads a tensor sharded differently "
         "from what its output needs, so communication is an expr of its own";
}

void DecomposeReshardingsPass::run(ir::Fusion& fusion, const PassOptions&,
                                   PassRecord& record) const {
  for (ir::Expr* expr : fusion.exprsForOutputs()) {
    if (multidevice::isReshardingSet(expr)) continue;
    const auto* out = expr->output(0)->as<ir::TensorView>();
    if (out == nullptr || !out->hasDeviceMesh()) continue;
    for (size_t i = 0; i < expr->inputs().size(); ++i) {
      auto* in = expr->input(i)->as<ir::TensorView>();
      if (in == nullptr || !in->hasDeviceMesh()) continue;
      const int64_t needed = neededAxis(expr, i, out);
      const bool partialNeeded =
          needed < 0 && multidevice::isPartial(out) &&
          multidevice::mapToProducer(expr, i, shardedLogicalId(out)) != nullptr;
      if (partialNeeded &&
          shardedLogicalId(in) == multidevice::mapToProducer(expr, i, shardedLogicalId(out))) {
        continue;  // K-sharded operand of a partial linear
      }
      if (!multidevice::isPartial(in) && multidevice::shardedAxis(in) == needed) {
        continue;
      }
      ir::TensorView* copy = reshardedCopy(in, needed);
      fusion.replaceExprInput(expr, in, copy);
      record.rewrites.push_back(describeSet(in, copy) + ", for " + expr->opName());
    }
  }
  for (size_t o = 0; o < fusion.outputs().size(); ++o) {
    auto* tv = fusion.outputs()[o].val->as<ir::TensorView>();
    if (tv == nullptr || !multidevice::isPartial(tv)) continue;
    ir::TensorView* copy = reshardedCopy(tv, -1);
    fusion.replaceOutput(o, copy);
    record.rewrites.push_back(describeSet(tv, copy) + ", for output " + std::to_string(o));
  }
}

}  // namespace fuserlab::passes
