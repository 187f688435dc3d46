#include "core/ir/bounded_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

namespace fs = std::filesystem;

class BoundedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fuserlab_bounded_file_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }
  static std::string errorOf(const std::string& path, uint64_t maxBytes) {
    try {
      readUserFile(path, "script", maxBytes);
    } catch (const UserError& error) {
      return error.what();
    }
    return "(no error)";
  }

  fs::path dir_;
};

TEST_F(BoundedFileTest, ReadsARegularFileWhole) {
  const std::string bytes = std::string("a\0b", 3) + std::string(200000, 'x');
  const std::string path = write("a.py", bytes);
  EXPECT_EQ(readUserFile(path, "script", bytes.size()), bytes);
  EXPECT_EQ(requireRegularFile(path, "script", bytes.size()), bytes.size());
  // A symlink to a regular file is that file, where links are followed.
  fs::create_symlink(path, dir_ / "link.py");
  EXPECT_EQ(readUserFile((dir_ / "link.py").string(), "script", bytes.size()), bytes);
  EXPECT_EQ(readBoundedFile((dir_ / "link.py").string(), bytes.size(), false).problem,
            FileProblem::NotRegular);
}

TEST_F(BoundedFileTest, LargerThanTheBoundIsRefusedBySize) {
  const std::string path = write("big.py", std::string(4097, 'x'));
  EXPECT_EQ(readBoundedFile(path, 4096).problem, FileProblem::TooLarge);
  EXPECT_EQ(errorOf(path, 4096), "cannot read the script '" + path +
                                     "': it holds 4.0 KiB, more than the 4 KiB "
                                     "FuserLab reads");
  EXPECT_THROW(requireRegularFile(path, "script", 4096), UserError);
}

// Issue 43 item 7: a named pipe would block the reader; a device would feed
// it without end; a directory is not a file.
TEST_F(BoundedFileTest, SpecialFilesAreRefusedBeforeReading) {
  const std::string fifo = (dir_ / "fifo.py").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(errorOf(fifo, kMaxScriptBytes),
            "cannot read the script '" + fifo +
                "': it is a named pipe; FuserLab reads only regular files");
  EXPECT_EQ(readBoundedFile("/dev/zero", kMaxScriptBytes).problem, FileProblem::NotRegular);
  fs::create_symlink("/dev/zero", dir_ / "zero.py");
  EXPECT_NE(errorOf((dir_ / "zero.py").string(), kMaxScriptBytes).find("it is a character device"),
            std::string::npos);
  EXPECT_NE(errorOf(dir_.string(), kMaxScriptBytes).find("it is a directory"), std::string::npos);
  EXPECT_THROW(requireRegularFile(fifo, "tensor file", 1 << 20), UserError);

  const std::string socketPath = (dir_ / "s").string();
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socketPath.c_str());
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(readBoundedFile(socketPath, kMaxScriptBytes).problem, FileProblem::NotRegular);
  ::close(sock);
}

TEST_F(BoundedFileTest, MissingFileSaysSo) {
  const std::string path = (dir_ / "nothing.py").string();
  EXPECT_EQ(readBoundedFile(path, 10).problem, FileProblem::Missing);
  EXPECT_EQ(errorOf(path, 10), "cannot read the script '" + path + "': no such file");
}

TEST_F(BoundedFileTest, DescribesSizes) {
  EXPECT_EQ(describeBytes(812), "812 bytes");
  EXPECT_EQ(describeBytes(uint64_t{32} << 20), "32 MiB");
  EXPECT_EQ(describeBytes(uint64_t{3} << 29), "1.5 GiB");
}

}  // namespace
}  // namespace fuserlab::ir
