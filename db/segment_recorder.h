// SegmentRecorder: "tune what was met" (issue 48 item 4), as PyTorch's
// TunableOp and MIOpen record untuned problems at run time. A
// HeuristicProvider that passes every question on to the next provider (the
// database search path, or none) and, when nothing answers and the segment's
// scheduler has params to tune, appends the segment's database key and the
// fusion it came from (script, definition, input sizes) to a JSON-lines
// record file. `fuserlab-cli tune --from-record FILE` turns the file into a
// tuning plan (tuner/plan.h).
//
// One line per write(2) on a file opened with O_APPEND: on a local
// filesystem concurrent processes appending to one file do not interleave
// their lines (the kernel serializes writes to a regular file and moves the
// offset to the end for each). A key is recorded once per recorder (a
// process may compile the same segment again after a cache miss).
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "core/report/json.h"
#include "core/scheduler/heuristic_provider.h"
#include "db/segment_key.h"

namespace fuserlab::db {

//! Where a recorded segment came from: what tune needs to compile it again.
struct RecordOrigin {
  std::string script;  //!< the script's path, absolute
  std::string fusion;  //!< the definition's function name
  //! The inputs as --inputs text ("16x128x1600:bf16,1600:bf16"); nullopt
  //! when they came from the script's inputs block (strides and views kept).
  std::optional<std::string> inputs;
  std::string device;  //!< "cuda:0", or a table device's name
};

//! The record line of the segment keyed `key` met in `origin` (no newline).
report::Json recordLine(const RecordOrigin& origin, const SegmentKey& key);

class SegmentRecorder : public scheduler::HeuristicProvider {
 public:
  //! Appends to `path` (created 0644 if missing); UserError if it cannot be
  //! opened for appending. `next` may be null.
  SegmentRecorder(std::string path, RecordOrigin origin, const scheduler::HeuristicProvider* next);
  ~SegmentRecorder() override;
  SegmentRecorder(const SegmentRecorder&) = delete;
  SegmentRecorder& operator=(const SegmentRecorder&) = delete;

  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override;

  //! Lines written so far.
  size_t recorded() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  RecordOrigin origin_;
  const scheduler::HeuristicProvider* next_;
  int fd_ = -1;
  mutable std::mutex mutex_;
  mutable std::set<std::string> seen_;
  mutable size_t recorded_ = 0;
};

//! Appends `line` and a newline to the O_APPEND descriptor `fd` in one
//! write; UserError naming `path` if the write fails or is short.
void appendRecordLine(int fd, const std::string& line, const std::string& path);

}  // namespace fuserlab::db
