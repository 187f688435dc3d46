#include "tuner/shard.h"

#include "core/ir/error.h"
#include "core/ir/parse_number.h"

namespace fuserlab::tuner {
namespace {

constexpr int64_t kMaxShards = 1 << 20;

int64_t number(const char* text, const std::string& what, int64_t minimum) {
  const auto value = ir::tryParseInteger(text, minimum, kMaxShards);
  FL_CHECK(value.has_value(), what, " must be a whole number from ", minimum, " to ", kMaxShards,
           ", found '", text, "'");
  return *value;
}

}  // namespace

Shard parseShard(std::string_view text) {
  const size_t slash = text.find('/');
  FL_CHECK(slash != std::string_view::npos, "--shard is K/N (shard K of N, K from 0), found '",
           text, "'");
  const auto k = ir::tryParseInteger(text.substr(0, slash), 0, kMaxShards);
  const auto n = ir::tryParseInteger(text.substr(slash + 1), 1, kMaxShards);
  FL_CHECK(k && n && *k < *n, "--shard is K/N with 0 <= K < N, found '", text, "'");
  return Shard{static_cast<int>(*k), static_cast<int>(*n), "--shard"};
}

Shard shardFromEnvironment(const Environment& environment) {
  if (const char* id = environment("SLURM_ARRAY_TASK_ID")) {
    const char* count = environment("SLURM_ARRAY_TASK_COUNT");
    FL_CHECK(count != nullptr,
             "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; "
             "pass --shard K/N");
    const char* min = environment("SLURM_ARRAY_TASK_MIN");
    const int64_t first = min ? number(min, "SLURM_ARRAY_TASK_MIN", 0) : 0;
    const int64_t n = number(count, "SLURM_ARRAY_TASK_COUNT", 1);
    const int64_t k = number(id, "SLURM_ARRAY_TASK_ID", 0) - first;
    // A stepped array (--array=0-7:2) has ids that are not first..first+n-1.
    FL_CHECK(k >= 0 && k < n, "SLURM_ARRAY_TASK_ID ", id, " minus SLURM_ARRAY_TASK_MIN ", first,
             " is not below SLURM_ARRAY_TASK_COUNT ", n,
             " (an array with steps or gaps?); pass --shard K/N");
    return Shard{static_cast<int>(k), static_cast<int>(n), "SLURM_ARRAY_TASK_ID"};
  }
  for (const auto& [rankName, sizeName] :
       {std::pair<const char*, const char*>{"RANK", "WORLD_SIZE"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}}) {
    const char* rank = environment(rankName);
    const char* size = environment(sizeName);
    if (rank == nullptr || size == nullptr) continue;
    const int64_t n = number(size, sizeName, 1);
    const int64_t k = number(rank, rankName, 0);
    FL_CHECK(k < n, rankName, " ", k, " is not below ", sizeName, " ", n);
    return Shard{static_cast<int>(k), static_cast<int>(n), rankName};
  }
  return Shard{};
}

std::vector<size_t> shardItems(size_t items, const Shard& shard) {
  std::vector<size_t> taken;
  for (size_t i = 0; i < items; ++i) {
    if (shard.takes(i)) taken.push_back(i);
  }
  return taken;
}

}  // namespace fuserlab::tuner
