#include "core/multidevice/communication.h"

#include "core/ir/error.h"
#include "core/multidevice/sharding.h"

namespace fuserlab::multidevice {

std::string_view toString(CommunicationType type) {
  switch (type) {
    case CommunicationType::None: return "none";
    case CommunicationType::LocalSlice: return "local_slice";
    case CommunicationType::Allgather: return "allgather";
    case CommunicationType::Allreduce: return "allreduce";
    case CommunicationType::ReduceScatter: return "reduce_scatter";
    case CommunicationType::Broadcast: return "broadcast";
    case CommunicationType::SendRecv: return "send_recv";
  }
  return "?";
}

CommunicationType classifyResharding(const ir::TensorView* in, const ir::TensorView* out) {
  const ir::DeviceMesh& from = in->deviceMesh();
  const ir::DeviceMesh& to = out->deviceMesh();
  if (from != to) {
    FL_CHECK(!isSharded(in) && !isSharded(out) && from.size() == 1, "resharding ", in->name(), " (",
             describeSharding(in), ") to ", out->name(), " (", describeSharding(out),
             "): moving between meshes is supported from one device only");
    return to.size() == 1 ? CommunicationType::SendRecv : CommunicationType::Broadcast;
  }
  const bool partial = isPartial(in);
  const int64_t inAxis = shardedAxis(in);
  const int64_t outAxis = shardedAxis(out);
  FL_CHECK(!isPartial(out), "resharding into the partial tensor ", out->name(),
           " is not a communication");
  if (partial) {
    return outAxis < 0 ? CommunicationType::Allreduce : CommunicationType::ReduceScatter;
  }
  if (inAxis == outAxis) return CommunicationType::None;
  if (outAxis < 0) return CommunicationType::Allgather;
  if (inAxis < 0) return CommunicationType::LocalSlice;
  FL_CHECK(false, "resharding ", in->name(), " from axis ", inAxis, " to axis ", outAxis,
           " (an all-to-all) is not supported; gather it first");
  return CommunicationType::None;
}

bool isReshardingSet(const ir::Expr* expr) {
  if (expr->type() != ir::ExprType::Set) return false;
  const auto* in = expr->input(0)->as<ir::TensorView>();
  const auto* out = expr->output(0)->as<ir::TensorView>();
  if (in == nullptr || out == nullptr) return false;
  if (!in->hasDeviceMesh() && !out->hasDeviceMesh()) return false;
  return in->deviceMesh() != out->deviceMesh() || isPartial(in) != isPartial(out) ||
         shardedAxis(in) != shardedAxis(out);
}

}  // namespace fuserlab::multidevice
