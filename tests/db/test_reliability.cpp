// What must survive real use: two processes writing the same file at once
// lose no row, and a writer killed with SIGKILL (mid-transaction or mid-
// commit) leaves a valid file holding every committed row and nothing else.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>

#include "db/heuristics_database.h"
#include "db/maintenance.h"
#include "db/transaction.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using testing_support::DatabaseFixture;
using testing_support::makeEntry;
using testing_support::pointwiseParams;

class ReliabilityTest : public DatabaseFixture {};

// Runs `body` in a child process; its exit code is 0 if `body` returned
// and 1 if it threw. The child never returns into the test runner.
template <typename Body>
pid_t spawn(Body body) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  int code = 0;
  try {
    body();
  } catch (const std::exception& error) {
    fprintf(stderr, "child %d: %s\n", getpid(), error.what());
    code = 1;
  }
  _exit(code);
}

int exitCodeOf(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

void storeOne(HeuristicsDatabase& database, int n) {
  Transaction transaction(database.connection());
  database.store(makeEntry(n, "8x" + std::to_string(n), pointwiseParams(1, 64)));
  transaction.commit();
}

// Two processes create the same new file at once and write interleaved.
// Five fresh files per run: the one that opens second must read the other's
// stamp (application_id, schema version, tables) as of one commit, never its
// tables without its stamp ("not a FuserLab heuristics database", seen under
// load before the stamp was read in one statement).
TEST_F(ReliabilityTest, TwoProcessesWritingAtOnceLoseNoRow) {
  constexpr int kRowsEach = 150;
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE("file " + std::to_string(round));
    const std::string path = file("shared" + std::to_string(round) + ".db");
    int start[2];
    ASSERT_EQ(pipe(start), 0);
    std::vector<pid_t> children;
    for (int child = 0; child < 2; ++child) {
      children.push_back(spawn([&, child] {
        char go;
        close(start[1]);
        if (read(start[0], &go, 1) != 1) throw std::runtime_error("no start signal");
        HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
        for (int i = 0; i < kRowsEach; ++i) storeOne(database, child * 100000 + i);
      }));
    }
    close(start[0]);
    ASSERT_EQ(write(start[1], "gg", 2), 2);  // one byte each: go
    close(start[1]);
    for (pid_t pid : children) EXPECT_EQ(exitCodeOf(pid), 0);

    HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
    std::set<std::string> sizes;
    for (const Entry& entry : database.entries()) sizes.insert(entry.segment.sizes);
    EXPECT_EQ(sizes.size(), 2u * kRowsEach);
    for (int child = 0; child < 2; ++child) {
      for (int i = 0; i < kRowsEach; ++i) {
        EXPECT_EQ(sizes.count("8x" + std::to_string(child * 100000 + i)), 1u);
      }
    }
    EXPECT_TRUE(verifyDatabase(database).ok());
  }
}

// SQLite refuses to switch a file's journal mode at once, without waiting
// on its busy handler, while another connection holds a write lock: creating
// the database while another process was writing it (two tuning runs
// starting together) failed with "database is locked" instead of waiting,
// when new files were switched to WAL.
TEST_F(ReliabilityTest, CreatingTheFileWaitsForAnotherWriter) {
  const std::string path = file("busy.db");
  Connection other(path, Connection::Mode::ReadWriteCreate);
  other.exec("BEGIN IMMEDIATE");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    other.exec("COMMIT");
  });
  const auto start = std::chrono::steady_clock::now();
  try {
    HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
    storeOne(database, 1);
    EXPECT_EQ(database.entries().size(), 1u);
  } catch (const std::exception& error) {
    ADD_FAILURE() << error.what();
  }
  release.join();
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(250));
}

TEST_F(ReliabilityTest, SigkillMidTransactionKeepsEveryCommittedRow) {
  const std::string path = file("killed.db");
  constexpr int kCommitted = 20;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = spawn([&] {
    close(ready[0]);
    HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
    for (int i = 0; i < kCommitted; ++i) storeOne(database, i);
    Transaction open(database.connection());
    for (int i = 0; i < 50; ++i) {
      database.store(makeEntry(1000 + i, "9x9", pointwiseParams(1, 64)));
    }
    if (write(ready[1], "r", 1) != 1) throw std::runtime_error("pipe");
    pause();  // killed here, mid-transaction
  });
  close(ready[1]);
  char signal;
  ASSERT_EQ(read(ready[0], &signal, 1), 1);
  close(ready[0]);
  kill(pid, SIGKILL);
  EXPECT_EQ(exitCodeOf(pid), -SIGKILL);

  HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
  const VerifyResult result = verifyDatabase(database);
  EXPECT_TRUE(result.ok()) << result.problems.front();
  const auto entries = database.entries();
  ASSERT_EQ(entries.size(), static_cast<size_t>(kCommitted));
  for (int i = 0; i < kCommitted; ++i) {
    EXPECT_EQ(entries[i].segment.sizes, "8x" + std::to_string(i));
  }
  // The file takes writes again.
  storeOne(database, kCommitted);
  EXPECT_EQ(database.entries().size(), static_cast<size_t>(kCommitted + 1));
}

TEST_F(ReliabilityTest, SigkillDuringACommitStormKeepsEveryReportedRow) {
  const std::string path = file("storm.db");
  int progress[2];
  ASSERT_EQ(pipe(progress), 0);
  const pid_t pid = spawn([&] {
    close(progress[0]);
    HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
    for (int i = 0;; ++i) {
      storeOne(database, i);
      const int done = i + 1;  // reported only after the commit returned
      if (write(progress[1], &done, sizeof done) != sizeof done) return;
    }
  });
  close(progress[1]);
  int reported = 0;
  while (reported < 60) {
    ASSERT_EQ(read(progress[0], &reported, sizeof reported), static_cast<ssize_t>(sizeof reported));
  }
  kill(pid, SIGKILL);
  EXPECT_EQ(exitCodeOf(pid), -SIGKILL);
  int more;
  while (read(progress[0], &more, sizeof more) == sizeof more) reported = more;
  close(progress[0]);

  HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
  EXPECT_TRUE(verifyDatabase(database).ok());
  const auto count = static_cast<int>(database.entries().size());
  // Every reported commit is there; at most one more committed unreported.
  EXPECT_GE(count, reported);
  EXPECT_LE(count, reported + 1);
}

}  // namespace
}  // namespace fuserlab::db
