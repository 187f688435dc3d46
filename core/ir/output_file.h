// Writing a file whose path comes from a user (a report, kernels, tensors,
// an export): every write is checked, the close included, so a full disk (or
// /dev/full) is an error that names the path and the reason, never a success
// with the output lost. The one implementation the CLI, the workbench, viz
// and the .npy writer share.
//
// A named pipe is written only when a reader already holds it open: the
// open never blocks (O_NONBLOCK), so a pipe without a reader is the error
// "no reader on the named pipe" instead of a command that hangs forever.
// Once open, writes block as usual while a slow reader catches up.
#pragma once

#include <string>
#include <string_view>

namespace fuserlab::ir {

//! A file opened for writing (created or truncated). Each failure is a
//! UserError: "writing 'PATH' failed after N bytes: No space left on
//! device; the file is incomplete". Destroying it unclosed (after an error) closes it unchecked.
class OutputFile {
 public:
  //! Opens `path`; refuses a named pipe without a reader and a socket.
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  //! Writes all of `bytes`.
  void write(std::string_view bytes);
  void write(const void* bytes, size_t count) {
    write(std::string_view(static_cast<const char*>(bytes), count));
  }
  //! Closes the file and checks the close (a network filesystem may report
  //! a failed write only then).
  void close();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  size_t written_ = 0;  //!< bytes written so far, for the message
};

//! Writes `bytes` to `path` through an OutputFile.
void writeUserFile(const std::string& path, std::string_view bytes);

}  // namespace fuserlab::ir
