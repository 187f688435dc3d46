// TransposeParams: a transpose segment moves tiles through shared memory so
// both the inputs read along their innermost axis and the outputs write
// along theirs with coalesced, vectorized accesses.
#pragma once

#include <cstdint>
#include <string>

#include "core/report/json.h"

namespace fuserlab::scheduler {

struct TransposeParams {
  static constexpr int kSchemaVersion = 1;

  //! Tile sizes along the innermost axis of group 1 (the inputs' inner axis)
  //! and group 2 (the outputs' inner axis).
  int64_t tileSize1 = 32;
  int64_t tileSize2 = 32;
  //! Vectorization of group 1 reads and group 2 writes.
  int64_t vectorizationFactor1 = 1;
  int64_t vectorizationFactor2 = 1;
  int64_t blockDim = 128;
  bool useInt32Indexing = true;

  std::string toString() const;
  report::Json toJson() const;
  static TransposeParams fromJson(const report::Json& json);
  uint64_t hash() const;
  bool operator==(const TransposeParams&) const = default;
};

}  // namespace fuserlab::scheduler
