// Communication: what a resharding set (a Set whose output is sharded
// differently from its input) does between devices, classified from the two
// shardings. Seed 004's decomposition makes every such set its own expr, so
// compute and communication are separate.
#pragma once

#include <string_view>

#include "core/ir/expr.h"
#include "core/ir/tensor_view.h"

namespace fuserlab::multidevice {

enum class CommunicationType : uint8_t {
  None,           //!< same sharding: no data moves
  LocalSlice,     //!< replicated -> sharded: each device keeps its slice
  Allgather,      //!< sharded -> replicated
  Allreduce,      //!< partial -> replicated
  ReduceScatter,  //!< partial -> sharded
  Broadcast,      //!< one device -> a mesh of several
  SendRecv,       //!< one device -> another
};

std::string_view toString(CommunicationType type);

//! What moving `in`'s data into `out`'s sharding takes. A change of sharded
//! axis (all-to-all), or of mesh other than from one device, is a UserError.
CommunicationType classifyResharding(const ir::TensorView* in, const ir::TensorView* out);

//! True if `expr` is a Set whose output's sharding differs from its input's.
bool isReshardingSet(const ir::Expr* expr);

}  // namespace fuserlab::multidevice
