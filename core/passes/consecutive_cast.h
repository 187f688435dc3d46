// ConsecutiveCastPass: nvFuser's ConsecutiveCastPass. In a chain
// `b = cast(a, B); c = cast(b, C)` the middle cast changes no value when B
// holds every value of a's dtype exactly (bf16 -> float, float -> double,
// int32 -> int64, bool -> anything), so `c = cast(a, C)` gives the same
// result with one cast fewer; when C is a's dtype the pair round-trips and
// both go. A narrowing middle cast rounds, so float -> bf16 -> float stays.
// Only chains whose middle tensor has no other use and is not an output are
// folded. Invariant: every output keeps its values, dtype and name.
#pragma once

#include "core/ir/data_type.h"
#include "core/passes/pass.h"

namespace fuserlab::passes {

//! True if every value of `narrow` is exactly a value of `wide`.
bool representsExactly(ir::DataType wide, ir::DataType narrow);

class ConsecutiveCastPass final : public Pass {
 public:
  std::string_view name() const override { return "consecutive_cast"; }
  std::string_view description() const override;
  void run(ir::Fusion& fusion, const PassOptions& options, PassRecord& record) const override;
};

}  // namespace fuserlab::passes
