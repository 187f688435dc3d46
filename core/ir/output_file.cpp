#include "core/ir/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/ir/error.h"
#include "core/ir/input_files.h"

namespace fuserlab::ir {
namespace {

// Why opening `path` for writing failed with ENXIO: a named pipe nobody
// reads, or a socket (which open() never opens).
std::string noDeviceReason(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode)) {
    return "no reader on the named pipe (FuserLab does not wait for one: start "
           "the reader first, or write to a regular file)";
  }
  if (::stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) {
    return "it is a socket, which cannot be written as a file";
  }
  return std::strerror(ENXIO);
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path) {
  checkNotAnInputFile(path);
  // O_NONBLOCK so that opening a named pipe without a reader fails (ENXIO)
  // instead of waiting for one; it is cleared below for the writes.
  do {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
                 0666);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) {
    const int error = errno;
    FL_USER_ERROR("cannot write '", path,
                  "': ", error == ENXIO ? noDeviceReason(path) : std::string(std::strerror(error)));
  }
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    FL_USER_ERROR("cannot write '", path, "': ", std::strerror(error));
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write(std::string_view bytes) {
  FL_ASSERT(fd_ >= 0, "OutputFile::write after close on '", path_, "'");
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      FL_USER_ERROR("writing '", path_, "' failed after ", written_ + done,
                    " bytes: ", std::strerror(error), "; the file is incomplete");
    }
    done += static_cast<size_t>(n);
  }
  written_ += done;
}

void OutputFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  // No retry on EINTR: the descriptor is gone either way on Linux.
  FL_CHECK(::close(fd) == 0 || errno == EINTR, "writing '", path_,
           "' failed when closing it: ", std::strerror(errno), "; the file may be incomplete");
}

void writeUserFile(const std::string& path, std::string_view bytes) {
  OutputFile file(path);
  file.write(bytes);
  file.close();
}

}  // namespace fuserlab::ir
