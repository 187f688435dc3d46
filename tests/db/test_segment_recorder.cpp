// Tune what was met (issue 48 item 4): the recorder appends a JSON line for
// each segment compiled on the built-in heuristic (once per key), none for a
// segment the database answers, and lines of processes appending to one file
// at once stay whole.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "core/compiler/fusion_compiler.h"
#include "db/database_search_path.h"
#include "db/heuristics_database.h"
#include "db/segment_recorder.h"
#include "db/transaction.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using ir::DataType;
using scheduler::SchedulerType;
using testing_support::BoundFusion;
using testing_support::DatabaseFixture;
using testing_support::makeEntry;
using testing_support::pointwiseParams;
using testing_support::shape;

using testing_support::kPointwise;

std::vector<report::Json> readLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<report::Json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(report::Json::parse(line));
  return lines;
}

class SegmentRecorderTest : public DatabaseFixture {
 protected:
  RecordOrigin origin() const {
    return RecordOrigin{"/work/ln.py", "fusion", std::nullopt, "cuda:0"};
  }
  void compile(const scheduler::HeuristicProvider& provider, int64_t rows, int64_t cols) {
    BoundFusion bound(kPointwise, {shape(DataType::Float, {rows, cols})});
    runtime::Arguments inputs = {shape(DataType::Float, {rows, cols})};
    runtime::compileFusion(*bound.fusion, {}, scheduler::defaultDevice(), inputs, &provider, false);
  }
};

TEST_F(SegmentRecorderTest, RecordsHeuristicSegmentsOnceWithTheirKeyAndOrigin) {
  SegmentRecorder recorder(file("met.jsonl"), origin(), nullptr);
  compile(recorder, 16, 1600);
  compile(recorder, 16, 1600);  // the same key again: not recorded twice
  compile(recorder, 32, 64);
  EXPECT_EQ(recorder.recorded(), 2u);
  const auto lines = readLines(file("met.jsonl"));
  ASSERT_EQ(lines.size(), 2u);
  BoundFusion bound(kPointwise, {shape(DataType::Float, {16, 1600})});
  const SegmentKey key = segmentKey(*bound.fusion, SchedulerType::Pointwise, bound.info);
  EXPECT_EQ(lines[0].get("structure_hash")->asString(), key.structureHash);
  EXPECT_EQ(lines[0].get("sizes")->asString(), "16x1600");
  EXPECT_EQ(lines[0].get("scheduler")->asString(), "pointwise");
  EXPECT_EQ(lines[0].get("device_fingerprint")->asString(), key.deviceFingerprint);
  EXPECT_EQ(lines[0].get("script")->asString(), "/work/ln.py");
  EXPECT_EQ(lines[0].get("device")->asString(), "cuda:0");
  EXPECT_TRUE(lines[0].get("inputs")->isNull());
  EXPECT_EQ(lines[1].get("sizes")->asString(), "32x64");
}

TEST_F(SegmentRecorderTest, SegmentsTheDatabaseAnswersAreNotRecorded) {
  {
    BoundFusion bound(kPointwise, {shape(DataType::Float, {16, 1600})});
    const SegmentKey key = segmentKey(*bound.fusion, SchedulerType::Pointwise, bound.info);
    Entry entry = makeEntry(0, key.sizes, pointwiseParams(4, 256));
    entry.segment.structureHash = key.structureHash;
    entry.segment.sizeBucket = key.sizeBucket;
    HeuristicsDatabase database(file("h.db"), HeuristicsDatabase::Access::Write);
    Transaction transaction(database.connection());
    database.store(entry);
    transaction.commit();
  }
  DatabaseSearchPath path({file("h.db")}, {});
  SegmentRecorder recorder(file("met.jsonl"), origin(), &path);
  compile(recorder, 16, 1600);  // database_exact
  compile(recorder, 8, 8);      // heuristic
  const auto lines = readLines(file("met.jsonl"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].get("sizes")->asString(), "8x8");
}

// Eight processes append 200 lines of 5 KiB each (past PIPE_BUF and a page)
// to one file: every line comes back whole.
TEST_F(SegmentRecorderTest, ConcurrentProcessesAppendWholeLines) {
  const std::string path = file("met.jsonl");
  std::vector<pid_t> children;
  for (int p = 0; p < 8; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
      for (int i = 0; i < 200; ++i) {
        report::Json line = report::Json::object();
        line.set("process", int64_t{p});
        line.set("line", int64_t{i});
        line.set("padding", std::string(5000, char('a' + p)));
        appendRecordLine(fd, line.dump(-1), path);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto lines = readLines(path);  // a torn line would not parse
  ASSERT_EQ(lines.size(), 1600u);
  for (const auto& line : lines) {
    const int64_t p = line.get("process")->asInt();
    EXPECT_EQ(line.get("padding")->asString(), std::string(5000, char('a' + p)));
  }
}

TEST_F(SegmentRecorderTest, AnUnwritableRecordFileIsAUserError) {
  EXPECT_THROW(SegmentRecorder(file("no/such/dir/met.jsonl"), origin(), nullptr), UserError);
  EXPECT_THROW(SegmentRecorder("", origin(), nullptr), UserError);
}

}  // namespace
}  // namespace fuserlab::db
