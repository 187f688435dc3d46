// Shards of a tuning plan (issue 48 item 2): `--shard K/N` takes item i of
// the plan when i mod N == K (K from 0), so N shards of one plan file
// partition it exactly, balanced to one item, whatever the items are. The
// slice depends on the plan's order, so every shard must read the same plan
// (the same file); each shard writes its own database and `db merge` combines
// them.
//
// Without --shard, K/N come from the environment of the scheduler that
// started the process:
//   Slurm job arrays  SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT (K is the
//                     task id minus SLURM_ARRAY_TASK_MIN, so --array=1-4
//                     gives shards 0..3 of 4);
//   torchrun          RANK, WORLD_SIZE;
//   Open MPI          OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE;
// in that order; none set: one shard of one (the whole plan).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuserlab::tuner {

struct Shard {
  int index = 0;                   //!< K, from 0
  int count = 1;                   //!< N
  std::string origin = "default";  //!< "--shard", "SLURM_ARRAY_TASK_ID", ...

  //! Whether plan item `item` belongs to this shard.
  bool takes(size_t item) const { return static_cast<int>(item % count) == index; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

//! "K/N" with 0 <= K < N; UserError otherwise.
Shard parseShard(std::string_view text);

//! A variable's value or null (std::getenv in the CLI; a map in tests).
using Environment = std::function<const char*(const char*)>;

//! The shard the environment names (see the file comment); UserError for a
//! variable that is set but not a number in range.
Shard shardFromEnvironment(const Environment& environment);

//! The indices of a plan of `items` items that `shard` takes, in order.
std::vector<size_t> shardItems(size_t items, const Shard& shard);

}  // namespace fuserlab::tuner
