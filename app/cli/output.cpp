#include "app/cli/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/ir/error.h"

namespace fuserlab::cli {

void writeOutputFile(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  FL_CHECK(fd >= 0, "cannot write '", path, "': ", std::strerror(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      FL_USER_ERROR("writing '", path, "' failed after ", written, " of ",
                    bytes.size(), " bytes: ", std::strerror(error),
                    "; the file is incomplete");
    }
    written += static_cast<size_t>(n);
  }
  // A network filesystem may report a failed write only here.
  FL_CHECK(::close(fd) == 0, "writing '", path, "' failed when closing it: ",
           std::strerror(errno), "; the file may be incomplete");
}

void writeOutput(const std::string& path, std::string_view bytes) {
  if (path == "-") {
    std::cout << bytes;
    return;
  }
  writeOutputFile(path, bytes);
}

std::optional<std::string> finishStdout() {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int flushError = errno;
  if (!flushed || std::ferror(stdout) || !std::cout) {
    return std::string("writing the output to stdout failed") +
           (flushError != 0 ? std::string(": ") + std::strerror(flushError)
                            : std::string(" (a full disk?)")) +
           "; the output is incomplete";
  }
  // A network filesystem may report a failed write only when the file is
  // closed; closing a duplicate asks without closing stdout itself.
  const int copy = ::dup(::fileno(stdout));
  if (copy >= 0 && ::close(copy) != 0 && errno != EINTR) {
    return std::string("writing the output to stdout failed: ") +
           std::strerror(errno) + "; the output may be incomplete";
  }
  return std::nullopt;
}

}  // namespace fuserlab::cli
