// Running fuserlab-cli from tests: the exit code, stdout alone (where --json -
// writes) and stdout with stderr (what a user sees).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fuserlab::cli {

struct CliResult {
  int exitCode = -1;
  std::string stdoutText;
  std::string output;  //!< stdout followed by stderr
};

//! Runs `fuserlab-cli ARGS` (ARGS as a shell would split them).
CliResult runCli(const std::string& args);

//! How a run under limits ended.
struct BoundedCliResult {
  int exitCode = -1;      //!< the exit status, when the CLI exited
  int signal = 0;         //!< the signal that ended it, 0 when it exited
  bool timedOut = false;  //!< killed (SIGKILL) at the time limit
  std::string output;     //!< stdout followed by stderr, at most 1 MiB of each
};

//! The limits a hostile input runs under (the hostile corpora's tests). The
//! CLI maps about 1 GiB of address space before main (cuBLASLt, NVRTC); a
//! script the reader bounds stays far below 2 GiB. A sanitizer's shadow
//! memory needs terabytes of address space: no cap there. Each input takes
//! well under a second; the time limit is for a loaded machine.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr uint64_t kHostileAddressSpaceBytes = 0;
#else
inline constexpr uint64_t kHostileAddressSpaceBytes = uint64_t{2} << 30;
#endif
inline constexpr int kHostileTimeoutSeconds = 60;

//! Runs fuserlab-cli with `args` as its arguments (no shell), stdin from
//! /dev/null, its address space limited to `addressSpaceBytes` (0: no limit)
//! and killed after `timeoutSeconds`.
BoundedCliResult runCliBounded(const std::vector<std::string>& args, uint64_t addressSpaceBytes,
                               int timeoutSeconds);

//! A path inside the source tree.
std::string source(const std::string& relative);

//! The file names of resources/examples/*.py, sorted.
std::vector<std::string> bundledExamples();

//! A test with a scratch folder of its own (named by the suite, the test
//! and the process), made before and removed after each test.
class CliScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("fuserlab_") + test->test_suite_name() + "_" + std::to_string(::getpid()) +
            "_" + test->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  //! Writes `text` (bytes as they are) to the scratch file `name`; its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

  std::filesystem::path dir_;
};

}  // namespace fuserlab::cli
