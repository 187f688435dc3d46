#include "app/cli/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/ir/output_file.h"

namespace fuserlab::cli {

void writeOutputFile(const std::string& path, std::string_view bytes) {
  ir::writeUserFile(path, bytes);
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
    return std::string("writing the output to stdout failed: ") + std::strerror(errno) +
           "; the output may be incomplete";
  }
  return std::nullopt;
}

}  // namespace fuserlab::cli
