#include "db/database_provider.h"

#include <cmath>
#include <limits>

#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "db/compiler_version.h"
#include "db/heuristics_database.h"
#include "db/stable_hash.h"

namespace fuserlab::db {
namespace {

// The index keys: the key's fields but the sizes (or the bucket), hashed.
StableHasher commonKey(const SegmentKey& key) {
  StableHasher h("segment key");
  h.add(key.structureHash).add(key.scheduler).add(key.deviceFingerprint);
  h.addInt(key.paramsSchema);
  return h;
}

// The same-architecture index key: the device's architecture, not its
// fingerprint.
uint64_t archKey(const SegmentKey& key) {
  StableHasher h("segment key, same architecture");
  h.add(key.structureHash).add(key.scheduler);
  h.add(std::string(fingerprintArchitecture(key.deviceFingerprint)));
  h.addInt(key.paramsSchema);
  return h.value();
}

bool sameExceptSizes(const SegmentKey& a, const SegmentKey& b) {
  return a.structureHash == b.structureHash && a.scheduler == b.scheduler &&
         a.deviceFingerprint == b.deviceFingerprint && a.paramsSchema == b.paramsSchema;
}

// How far two problems are apart: the sum over extents of |log2(a / b)|.
double distance(const std::vector<std::vector<int64_t>>& a,
                const std::vector<std::vector<int64_t>>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double total = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size()) return std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < a[i].size(); ++j) {
      if (a[i][j] == b[i][j]) continue;
      const double x = std::max<int64_t>(a[i][j], 1);
      const double y = std::max<int64_t>(b[i][j], 1);
      total += std::fabs(std::log2(x / y));
    }
  }
  return total;
}

}  // namespace

std::string_view fingerprintArchitecture(std::string_view fingerprint) {
  return fingerprint.substr(0, fingerprint.find('-'));
}

std::vector<std::vector<int64_t>> parseSizes(std::string_view sizes) {
  std::vector<std::vector<int64_t>> result;
  size_t begin = 0;
  while (begin <= sizes.size()) {
    size_t end = sizes.find(',', begin);
    if (end == std::string_view::npos) end = sizes.size();
    std::string_view input = sizes.substr(begin, end - begin);
    if (auto at = input.find('@'); at != std::string_view::npos) {
      input = input.substr(0, at);
    }
    std::vector<int64_t> extents;
    if (input != "s") {
      size_t from = 0;
      while (from <= input.size()) {
        size_t to = input.find('x', from);
        if (to == std::string_view::npos) to = input.size();
        const std::optional<int64_t> extent = ir::tryParseInteger(
            input.substr(from, to - from), 0, std::numeric_limits<int64_t>::max());
        FL_CHECK(extent.has_value(), "stored sizes '", sizes,
                 "' are not of the form 16x128x1600,1600 (each size from 0 to ",
                 std::numeric_limits<int64_t>::max(), ")");
        extents.push_back(*extent);
        from = to + 1;
      }
    }
    result.push_back(std::move(extents));
    begin = end + 1;
  }
  return result;
}

DatabaseProvider::DatabaseProvider(const std::string& path) : path_(path) {
  HeuristicsDatabase database(path, HeuristicsDatabase::Access::Read);
  const std::string_view version = compilerVersion();
  std::vector<Entry> entries = database.entries();
  notes_ = database.readNotes();  // rows that could not be read: skipped
  for (Entry& entry : entries) {
    if (!versionInRange(version, entry.minCompilerVersion, entry.maxCompilerVersion)) {
      notes_.push_back(entry.summary() + " is valid for compiler versions " +
                       entry.minCompilerVersion + " to " +
                       entry.maxCompilerVersion.value_or("any later") + ", not this " +
                       std::string(version) + "; left out");
      continue;
    }
    auto type = scheduler::parseSchedulerType(entry.segment.scheduler);
    if (!type) {
      notes_.push_back(entry.summary() + " names scheduler '" + entry.segment.scheduler +
                       "', unknown here; left out");
      continue;
    }
    Indexed indexed;
    indexed.id = entry.id;
    indexed.portable = entry.portable;
    try {
      indexed.params = scheduler::paramsFromJson(*type, entry.params);
      indexed.extents = parseSizes(entry.segment.sizes);
    } catch (const UserError& error) {
      notes_.push_back(entry.summary() + ": its stored params or sizes no longer parse (" +
                       error.message() + "); left out");
      continue;
    }
    SegmentKey& key = indexed.key;
    key.structureHash = entry.segment.structureHash;
    key.scheduler = entry.segment.scheduler;
    key.sizes = entry.segment.sizes;
    key.sizeBucket = entry.segment.sizeBucket;
    key.deviceFingerprint = entry.device.fingerprint;
    key.paramsSchema = entry.paramsSchema;
    const StableHasher common = commonKey(key);
    exact_[StableHasher(common).add(key.sizes).value()].push_back(entries_.size());
    bucket_[StableHasher(common).add(key.sizeBucket).value()].push_back(entries_.size());
    arch_[archKey(key)].push_back(entries_.size());
    entries_.push_back(std::move(indexed));
  }
}

std::optional<scheduler::ProvidedParams> DatabaseProvider::find(
    const SegmentKey& key, const std::vector<std::vector<int64_t>>& extents) const {
  const StableHasher common = commonKey(key);
  if (auto it = exact_.find(StableHasher(common).add(key.sizes).value()); it != exact_.end()) {
    for (size_t index : it->second) {
      const Indexed& hit = entries_[index];
      if (hit.key.sizes == key.sizes && sameExceptSizes(hit.key, key)) {
        return scheduler::ProvidedParams{hit.params, std::string(kSourceExact), hit.id, path_, {}};
      }
    }
  }
  auto it = bucket_.find(StableHasher(common).add(key.sizeBucket).value());
  if (it == bucket_.end()) return std::nullopt;
  // The nearest sizes win; entries were loaded by id, so ties keep the
  // oldest.
  const Indexed* best = nullptr;
  double bestDistance = std::numeric_limits<double>::infinity();
  for (size_t index : it->second) {
    const Indexed& candidate = entries_[index];
    if (candidate.key.sizeBucket != key.sizeBucket || !sameExceptSizes(candidate.key, key)) {
      continue;
    }
    const double d = distance(candidate.extents, extents);
    if (best == nullptr || d < bestDistance) {
      best = &candidate;
      bestDistance = d;
    }
  }
  if (best == nullptr) return std::nullopt;
  return scheduler::ProvidedParams{best->params, std::string(kSourceBucket), best->id, path_, {}};
}

std::optional<scheduler::ProvidedParams> DatabaseProvider::findSameArch(
    const SegmentKey& key, const std::vector<std::vector<int64_t>>& extents,
    bool includeUnmarked) const {
  auto it = arch_.find(archKey(key));
  if (it == arch_.end()) return std::nullopt;
  const std::string_view arch = fingerprintArchitecture(key.deviceFingerprint);
  // Exact sizes beat the bucket; among equals the nearest sizes, then the
  // oldest entry (loaded by id).
  const Indexed* best = nullptr;
  bool bestExact = false;
  double bestDistance = std::numeric_limits<double>::infinity();
  for (size_t index : it->second) {
    const Indexed& candidate = entries_[index];
    if ((!candidate.portable && !includeUnmarked) ||
        candidate.key.deviceFingerprint == key.deviceFingerprint ||
        fingerprintArchitecture(candidate.key.deviceFingerprint) != arch ||
        candidate.key.structureHash != key.structureHash ||
        candidate.key.scheduler != key.scheduler ||
        candidate.key.paramsSchema != key.paramsSchema) {
      continue;
    }
    const bool exact = candidate.key.sizes == key.sizes;
    if (!exact && candidate.key.sizeBucket != key.sizeBucket) continue;
    const double d = exact ? 0 : distance(candidate.extents, extents);
    if (best == nullptr || (exact && !bestExact) || (exact == bestExact && d < bestDistance)) {
      best = &candidate;
      bestExact = exact;
      bestDistance = d;
    }
  }
  if (best == nullptr) return std::nullopt;
  return scheduler::ProvidedParams{best->params, std::string(kSourceSameArch), best->id, path_,
                                   best->key.deviceFingerprint};
}

std::optional<scheduler::ProvidedParams> DatabaseProvider::lookup(
    const ir::Fusion& segment, scheduler::SchedulerType type,
    const scheduler::SegmentRuntimeInfo& info) const {
  if (entries_.empty() || info.device == nullptr) return std::nullopt;
  const SegmentKey key = segmentKey(segment, type, info);
  std::vector<std::vector<int64_t>> extents;
  extents.reserve(info.inputs.size());
  for (const auto& input : info.inputs) extents.push_back(input.sizes);
  return find(key, extents);
}

}  // namespace fuserlab::db
