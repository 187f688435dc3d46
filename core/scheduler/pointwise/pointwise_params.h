// PointwiseParams: how a pointwise segment is launched, in the spirit of
// nvFuser's PointwiseParams. A 1-D schedule flattens the reference output;
// a 2-D schedule splits it at `breakPoint` into an outer part (grid y /
// blockDim.y) and an inner part (grid x / blockDim.x), so broadcast inputs
// are read once per block.
#pragma once

#include <cstdint>
#include <string>

#include "core/report/json.h"

namespace fuserlab::scheduler {

struct PointwiseParams {
  static constexpr int kSchemaVersion = 1;

  //! Elements per vectorized load/store (1, 2, 4, 8, 16); 16-byte accesses
  //! at most; applies to every vectorizable input and output.
  int64_t vectorizationFactor = 1;
  //! Vectorized chunks each thread handles along the inner dimension.
  int64_t unrollFactorInner = 1;
  //! Rows each thread handles along the outer dimension (2-D only).
  int64_t unrollFactorOuter = 1;
  //! 0: a 1-D schedule; else the logical axis of the reference tensor where
  //! the outer and inner parts split.
  int64_t breakPoint = 0;
  //! Threads per block along the inner and outer parts.
  int64_t blockDimX = 128;
  int64_t blockDimY = 1;
  //! Swap the roles of grid x and y (when the outer extent exceeds grid y's
  //! 65535 limit, or to improve locality).
  bool flipGrid = false;
  //! Index arithmetic in 32 bits when every tensor's span allows it.
  bool useInt32Indexing = true;

  std::string toString() const;
  report::Json toJson() const;
  //! UserError naming the field for a missing or ill-typed field.
  static PointwiseParams fromJson(const report::Json& json);
  uint64_t hash() const;
  bool operator==(const PointwiseParams&) const = default;
};

}  // namespace fuserlab::scheduler
