#include "db/database_search_path.h"

#include <sys/stat.h>

#include "core/ir/error.h"

namespace fuserlab::db {

DatabaseSearchPath::DatabaseSearchPath(const std::vector<std::string>& paths, Options options)
    : options_(options) {
  FL_CHECK(!paths.empty(), "a database search path needs at least one file");
  for (const std::string& path : paths) {
    FL_CHECK(!path.empty(), "--db needs a file name (the heuristics database)");
    struct stat info {};
    if (paths.size() > 1 && ::stat(path.c_str(), &info) != 0) {
      missing_.push_back(path);
      continue;
    }
    files_.push_back(std::make_unique<DatabaseProvider>(path));
  }
  FL_CHECK(!files_.empty(),
           "none of the heuristics databases of the search path exists: ", missing_.front(),
           (missing_.size() > 1 ? " and the others" : ""));
}

std::optional<scheduler::ProvidedParams> DatabaseSearchPath::find(
    const SegmentKey& key, const std::vector<std::vector<int64_t>>& extents) const {
  std::optional<scheduler::ProvidedParams> firstBucket;
  for (const auto& file : files_) {
    auto answer = file->find(key, extents);
    if (!answer) continue;
    if (answer->source == kSourceExact) return answer;
    if (!firstBucket) firstBucket = std::move(answer);
  }
  if (firstBucket) return firstBucket;
  // Last, an entry of another device of this architecture: one marked
  // portable, or any with allowSameArchitecture (the override).
  for (const auto& file : files_) {
    if (auto answer = file->findSameArch(key, extents, options_.allowSameArchitecture)) {
      return answer;
    }
  }
  return std::nullopt;
}

std::optional<scheduler::ProvidedParams> DatabaseSearchPath::lookup(
    const ir::Fusion& segment, scheduler::SchedulerType type,
    const scheduler::SegmentRuntimeInfo& info) const {
  if (size() == 0 || info.device == nullptr) return std::nullopt;
  const SegmentKey key = segmentKey(segment, type, info);
  std::vector<std::vector<int64_t>> extents;
  extents.reserve(info.inputs.size());
  for (const auto& input : info.inputs) extents.push_back(input.sizes);
  return find(key, extents);
}

std::string DatabaseSearchPath::path() const {
  std::string joined;
  for (const auto& file : files_) joined += (joined.empty() ? "" : ":") + file->path();
  return joined;
}

size_t DatabaseSearchPath::size() const {
  size_t total = 0;
  for (const auto& file : files_) total += file->size();
  return total;
}

std::vector<std::string> DatabaseSearchPath::notes() const {
  std::vector<std::string> all;
  for (const std::string& path : missing_) {
    all.push_back(path + " does not exist; the search path goes on without it");
  }
  for (const auto& file : files_) {
    for (const std::string& note : file->notes()) {
      all.push_back(files_.size() > 1 ? file->path() + ": " + note : note);
    }
  }
  return all;
}

std::vector<std::string> splitSearchPath(std::string_view text) {
  std::vector<std::string> paths;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(':', begin);
    if (end == std::string_view::npos) end = text.size();
    if (end > begin) paths.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return paths;
}

}  // namespace fuserlab::db
