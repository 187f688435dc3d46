#include "core/ir/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "core/ir/error.h"
#include "core/ir/input_files.h"

namespace fuserlab::ir {
namespace {

std::string kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes the descriptor on every path out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens `path` without blocking and checks what it is; on a problem, fills
// `result` and returns -1. `size` receives the file's size.
int openRegular(const std::string& path, uint64_t maxBytes, bool followSymlinks,
                BoundedRead& result, uint64_t& size) {
  // O_NONBLOCK: opening a named pipe for reading would otherwise wait for a
  // writer. It changes nothing for a regular file's reads.
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  if (!followSymlinks) flags |= O_NOFOLLOW;
  int fd = -1;
  do {
    fd = ::open(path.c_str(), flags);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      result.problem = FileProblem::Missing;
      result.reason = "no such file";
    } else if (error == ELOOP && !followSymlinks) {
      result.problem = FileProblem::NotRegular;
      result.reason = "it is a symbolic link, which is not followed here";
    } else if (error == ENXIO) {  // a socket, or a device without a driver
      result.problem = FileProblem::NotRegular;
      result.reason = "it is not a regular file (FuserLab reads only regular files)";
    } else {
      result.problem = FileProblem::Unreadable;
      result.reason = std::strerror(error);
    }
    return -1;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    result.problem = FileProblem::Unreadable;
    result.reason = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(info.st_mode)) {
    result.problem = FileProblem::NotRegular;
    result.reason = "it is " + kindOf(info.st_mode) + "; FuserLab reads only regular files";
    ::close(fd);
    return -1;
  }
  size = static_cast<uint64_t>(info.st_size);
  if (size > maxBytes) {
    result.problem = FileProblem::TooLarge;
    result.reason = "it holds " + describeBytes(size) + ", more than the " +
                    describeBytes(maxBytes) + " FuserLab reads";
    ::close(fd);
    return -1;
  }
  return fd;
}

[[noreturn]] void throwProblem(const std::string& path, std::string_view what,
                               const BoundedRead& read) {
  FL_USER_ERROR("cannot read the ", what, " '", path, "': ", read.reason);
}

}  // namespace

std::string describeBytes(uint64_t bytes) {
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit + 1 < static_cast<int>(std::size(kUnits))) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value == static_cast<uint64_t>(value) ? "%.0f %s" : "%.1f %s",
                value, kUnits[unit]);
  return text;
}

BoundedRead readBoundedFile(const std::string& path, uint64_t maxBytes, bool followSymlinks) {
  BoundedRead result;
  uint64_t size = 0;
  const Descriptor fd(openRegular(path, maxBytes, followSymlinks, result, size));
  if (fd.get() < 0) return result;
  // The size is a hint (a /proc file says 0, a file may grow while read):
  // read to the end, but never past the bound.
  std::string bytes;
  bytes.reserve(size);
  char chunk[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result.problem = FileProblem::Unreadable;
      result.reason = std::strerror(errno);
      return result;
    }
    if (n == 0) break;
    if (bytes.size() + static_cast<uint64_t>(n) > maxBytes) {
      result.problem = FileProblem::TooLarge;
      result.reason = "it holds more than the " + describeBytes(maxBytes) + " FuserLab reads";
      return result;
    }
    bytes.append(chunk, static_cast<size_t>(n));
  }
  result.bytes = std::move(bytes);
  return result;
}

std::string readUserFile(const std::string& path, std::string_view what, uint64_t maxBytes) {
  BoundedRead read = readBoundedFile(path, maxBytes);
  if (read.problem != FileProblem::None) throwProblem(path, what, read);
  noteInputFile(path, what);
  return std::move(read.bytes);
}

uint64_t requireRegularFile(const std::string& path, std::string_view what, uint64_t maxBytes) {
  BoundedRead result;
  uint64_t size = 0;
  const Descriptor fd(openRegular(path, maxBytes, /*followSymlinks=*/true, result, size));
  if (fd.get() < 0) throwProblem(path, what, result);
  noteInputFile(path, what);
  return size;
}

}  // namespace fuserlab::ir
