// A heuristics database shared between users and installs: readers need no
// write access and leave nothing behind. A lookup from a read-only folder (a
// system-wide install, a shared project folder) works, and another user's
// reading leaves no -wal or -shm file that the owner could not write next
// time (issue 43). Tests run as root, who may write anything: the other
// users are forked children that drop to an unprivileged uid.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "db/connection.h"
#include "db/database_provider.h"
#include "db/heuristics_database.h"
#include "db/statement.h"
#include "db/transaction.h"
#include "tests/db/db_fixture.h"

namespace fuserlab::db {
namespace {

using testing_support::DatabaseFixture;
using testing_support::makeEntry;
using testing_support::pointwiseParams;

// Unprivileged uids for the owner and the other user (no account needed).
constexpr uid_t kOwner = 54321;
constexpr uid_t kOtherUser = 54322;

class SharingTest : public DatabaseFixture {
 protected:
  // Runs `body` in a child process as `uid` (when the tests run as root;
  // otherwise as this user). Returns "" if `body` returned, else why not.
  static std::string runAs(uid_t uid, const std::function<void()>& body) {
    int pipeFds[2];
    if (pipe(pipeFds) != 0) return "pipe failed";
    const pid_t pid = fork();
    if (pid == 0) {
      close(pipeFds[0]);
      std::string error;
      if (geteuid() == 0 && (setgid(uid) != 0 || setuid(uid) != 0)) {
        error = "setuid failed";
      } else {
        try {
          body();
        } catch (const std::exception& e) {
          error = e.what();
        }
      }
      if (!error.empty() && write(pipeFds[1], error.data(), error.size()) < 0) {
        _exit(2);
      }
      _exit(error.empty() ? 0 : 1);
    }
    close(pipeFds[1]);
    std::string error;
    char buffer[512];
    for (ssize_t n; (n = read(pipeFds[0], buffer, sizeof buffer)) > 0;) {
      error.append(buffer, static_cast<size_t>(n));
    }
    close(pipeFds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
    return error.empty() ? "child failed (status " + std::to_string(status) + ")" : error;
  }

  // The files in the test folder besides `keep`.
  std::vector<std::string> otherFiles(const std::string& keep) const {
    std::vector<std::string> names;
    for (const auto& item : std::filesystem::directory_iterator(dir_)) {
      if (item.path().filename() != keep) names.push_back(item.path().filename());
    }
    return names;
  }

  static void storeEntries(const std::string& path, int first, int count) {
    HeuristicsDatabase database(path, HeuristicsDatabase::Access::Write);
    Transaction transaction(database.connection());
    for (int n = first; n < first + count; ++n) {
      database.store(makeEntry(n, "8x" + std::to_string(n), pointwiseParams(1, 128)));
    }
    transaction.commit();
  }
};

// The read-only install: the folder (and the file) cannot be written by the
// reader. A WAL file needed a -shm file there: 'unable to open database file'.
TEST_F(SharingTest, LookupsWorkFromAReadOnlyFolder) {
  const std::string path = file("h.db");
  storeEntries(path, 1, 3);
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(chmod(dir_.c_str(), 0555), 0);
  const std::string error = runAs(kOtherUser, [&] {
    DatabaseProvider provider(path);
    if (provider.size() != 3)
      throw std::runtime_error("read " + std::to_string(provider.size()) + " entries");
    HeuristicsDatabase database(path, HeuristicsDatabase::Access::Read);
    if (database.entries().size() != 3) throw std::runtime_error("entries() is short");
  });
  chmod(dir_.c_str(), 0755);
  EXPECT_EQ(error, "");
  EXPECT_EQ(otherFiles("h.db"), std::vector<std::string>{});
}

// A file an earlier FuserLab left in WAL mode is read from a read-only
// folder too (as immutable: no writer has it open, as no -shm is there), and
// the next writer switches it out of WAL.
TEST_F(SharingTest, AWalFileIsReadFromAReadOnlyFolderAndSwitchedByTheNextWriter) {
  const std::string path = file("h.db");
  storeEntries(path, 1, 2);
  {
    Connection c(path, Connection::Mode::ReadWrite);
    c.exec("PRAGMA journal_mode = WAL");
  }
  ASSERT_EQ(chmod(dir_.c_str(), 0555), 0);
  const std::string error = runAs(kOtherUser, [&] {
    DatabaseProvider provider(path);
    if (provider.size() != 2)
      throw std::runtime_error("read " + std::to_string(provider.size()) + " entries");
  });
  chmod(dir_.c_str(), 0755);
  EXPECT_EQ(error, "");
  EXPECT_EQ(otherFiles("h.db"), std::vector<std::string>{});
  storeEntries(path, 3, 1);
  Connection c(path, Connection::Mode::ReadOnly);
  Statement mode(c, "PRAGMA journal_mode");
  auto scope = mode.begin();
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.columnText(0), "delete");
}

// A shared project folder: the owner writes, another user reads, the owner
// writes again. With WAL the reader left -wal and -shm files of its own
// that the owner could not write: 'attempt to write a readonly database'.
TEST_F(SharingTest, AnotherUsersReadLeavesNothingInTheOwnersWay) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as two users";
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  const std::string path = file("h.db");
  EXPECT_EQ(runAs(kOwner, [&] { storeEntries(path, 1, 2); }), "");
  EXPECT_EQ(runAs(kOtherUser,
                  [&] {
                    DatabaseProvider provider(path);
                    if (provider.size() != 2) throw std::runtime_error("short read");
                  }),
            "");
  EXPECT_EQ(otherFiles("h.db"), std::vector<std::string>{});
  EXPECT_EQ(runAs(kOwner, [&] { storeEntries(path, 3, 1); }), "");
  EXPECT_EQ(HeuristicsDatabase(path, HeuristicsDatabase::Access::Read).entries().size(), 3u);
}

}  // namespace
}  // namespace fuserlab::db
