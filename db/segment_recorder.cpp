#include "db/segment_recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/ir/error.h"
#include "db/compiler_version.h"

namespace fuserlab::db {

report::Json recordLine(const RecordOrigin& origin, const SegmentKey& key) {
  using report::Json;
  Json line = Json::object();
  line.set("format", int64_t{1});
  line.set("script", origin.script);
  line.set("fusion", origin.fusion);
  line.set("inputs", origin.inputs ? Json(*origin.inputs) : Json());
  line.set("device", origin.device);
  line.set("device_fingerprint", key.deviceFingerprint);
  line.set("structure_hash", key.structureHash);
  line.set("scheduler", key.scheduler);
  line.set("sizes", key.sizes);
  line.set("size_bucket", key.sizeBucket);
  line.set("params_schema", int64_t{key.paramsSchema});
  line.set("compiler_version", std::string(compilerVersion()));
  return line;
}

void appendRecordLine(int fd, const std::string& line, const std::string& path) {
  const std::string bytes = line + "\n";
  const ssize_t written = ::write(fd, bytes.data(), bytes.size());
  FL_CHECK(written == static_cast<ssize_t>(bytes.size()), "cannot append to the record file '",
           path, "': ", written < 0 ? std::strerror(errno) : "a short write");
}

SegmentRecorder::SegmentRecorder(std::string path, RecordOrigin origin,
                                 const scheduler::HeuristicProvider* next)
    : path_(std::move(path)), origin_(std::move(origin)), next_(next) {
  FL_CHECK(!path_.empty(), "the record file needs a name (FUSERLAB_DB_RECORD or --record)");
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  FL_CHECK(fd_ >= 0, "cannot open the record file '", path_,
           "' for appending: ", std::strerror(errno));
}

SegmentRecorder::~SegmentRecorder() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<scheduler::ProvidedParams> SegmentRecorder::lookup(
    const ir::Fusion& segment, scheduler::SchedulerType type,
    const scheduler::SegmentRuntimeInfo& info) const {
  auto answer = next_ != nullptr ? next_->lookup(segment, type, info) : std::nullopt;
  if (answer || info.device == nullptr || paramsSchemaVersion(type) == 0) return answer;
  const SegmentKey key = segmentKey(segment, type, info);
  const report::Json line = recordLine(origin_, key);
  const std::string text = line.dump(-1);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!seen_.insert(text).second) return answer;
  appendRecordLine(fd_, text, path_);
  ++recorded_;
  return answer;
}

size_t SegmentRecorder::recorded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return recorded_;
}

}  // namespace fuserlab::db
