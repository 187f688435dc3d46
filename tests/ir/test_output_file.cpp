// ir::OutputFile, the checked writer every output a user names goes through:
// a failed write, a pipe nobody reads, a socket and a directory are
// UserErrors naming the path and the reason; a regular file and a pipe with
// a reader take the bytes.
#include "core/ir/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fuserlab_output_file_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string errorOf(const std::string& target, const std::string& bytes) {
    try {
      writeUserFile(target, bytes);
    } catch (const UserError& error) {
      return error.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, WritesAndTruncatesARegularFile) {
  writeUserFile(path("a.txt"), "a longer first text");
  writeUserFile(path("a.txt"), "second");
  std::ifstream in(path("a.txt"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "second");
}

TEST_F(OutputFileTest, AFullDiskIsAnErrorWithThePathAndTheReason) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  EXPECT_EQ(errorOf("/dev/full", "x"),
            "writing '/dev/full' failed after 0 bytes: No space left on device; the file "
            "is incomplete");
  // Streamed (as .npy files are): the first write fails.
  OutputFile file("/dev/full");
  EXPECT_THROW(file.write("abc"), UserError);
}

TEST_F(OutputFileTest, ANamedPipeIsWrittenOnlyWithAReader) {
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Without a reader: an error at once (the open used to wait forever).
  const std::string error = errorOf(fifo, "x");
  EXPECT_NE(error.find("cannot write '" + fifo + "': no reader on the named pipe"),
            std::string::npos)
      << error;
  // With one: the bytes arrive.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  writeUserFile(fifo, "through the pipe");
  char received[64] = {};
  const ssize_t n = ::read(reader, received, sizeof received);
  ::close(reader);
  EXPECT_EQ(std::string(received, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
}

TEST_F(OutputFileTest, ASocketAndADirectoryAreErrors) {
  const std::string socketPath = path("s");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socketPath.size(), sizeof address.sun_path);
  std::copy(socketPath.begin(), socketPath.end(), address.sun_path);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_NE(errorOf(socketPath, "x").find("it is a socket"), std::string::npos);
  ::close(fd);
  EXPECT_NE(errorOf(dir_.string(), "x").find("Is a directory"), std::string::npos);
  EXPECT_NE(errorOf(path("missing/a.txt"), "x").find("No such file or directory"),
            std::string::npos);
}

}  // namespace
}  // namespace fuserlab::ir
