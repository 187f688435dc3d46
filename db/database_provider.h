// DatabaseProvider: the heuristics database as the runtime's
// HeuristicProvider. At construction it reads every entry valid for this
// compiler version into an in-memory index and closes nothing it keeps open:
// lookups touch no file. A lookup tries the exact key (structure, scheduler,
// sizes, device, params schema), then the size bucket (the nearest stored
// sizes in it win), else answers nothing and the built-in heuristic runs.
// Its answer is still checked by the scheduler's rejectParams.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/scheduler/heuristic_provider.h"
#include "db/segment_key.h"

namespace fuserlab::db {

//! The report's params_source values.
inline constexpr std::string_view kSourceExact = "database_exact";
inline constexpr std::string_view kSourceBucket = "database_bucket";
//! An entry of another device of the same architecture (compute capability)
//! with another SM count, memory or clock: used only when marked portable
//! (or when the user allows any).
inline constexpr std::string_view kSourceSameArch = "database_same_arch";

class DatabaseProvider : public scheduler::HeuristicProvider {
 public:
  //! Loads `path` (which must exist). Entries outside their compiler version
  //! range, whose params no longer parse or that cannot be read (a damaged
  //! page) are left out, with a note each.
  explicit DatabaseProvider(const std::string& path);

  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override;

  //! The index probe alone, for a key already computed; `extents` are the
  //! query's sizes per input (for choosing the nearest bucket entry).
  std::optional<scheduler::ProvidedParams> find(
      const SegmentKey& key, const std::vector<std::vector<int64_t>>& extents) const;

  //! The same-architecture fallback: an entry of the key's structure,
  //! scheduler and params schema measured on another device whose
  //! fingerprint has the same compute capability; exact sizes first, then
  //! the nearest sizes in the bucket. Only entries marked portable, unless
  //! `includeUnmarked`. Source kSourceSameArch, with fallbackDevice set.
  std::optional<scheduler::ProvidedParams> findSameArch(
      const SegmentKey& key, const std::vector<std::vector<int64_t>>& extents,
      bool includeUnmarked = false) const;

  const std::string& path() const { return path_; }
  size_t size() const { return entries_.size(); }
  //! Why entries were left out at load (one sentence each).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct Indexed {
    int64_t id = 0;
    SegmentKey key;  //!< compared on a hit: the index keys are hashes
    scheduler::HeuristicParams params;
    std::vector<std::vector<int64_t>> extents;
    bool portable = false;  //!< Entry::portable
  };

  std::string path_;
  std::vector<Indexed> entries_;
  // Hashes of the exact key and of the bucket key (see the .cpp), to
  // positions in entries_.
  std::unordered_map<uint64_t, std::vector<size_t>> exact_;
  std::unordered_map<uint64_t, std::vector<size_t>> bucket_;
  // Hash of the key without sizes and device but with its architecture.
  std::unordered_map<uint64_t, std::vector<size_t>> arch_;
  std::vector<std::string> notes_;
};

//! The architecture part of a device fingerprint: "sm_90" of
//! "sm_90-132sm-80gb-51200kib-1980mhz".
std::string_view fingerprintArchitecture(std::string_view fingerprint);

//! "16x128x1600,1600,s" -> {{16,128,1600},{1600},{}} (strides dropped).
std::vector<std::vector<int64_t>> parseSizes(std::string_view sizes);

}  // namespace fuserlab::db
