// Reading a file whose path comes from outside (a script a user names, a db
// import or params file, a .npy, a kernel cache entry): only a regular file,
// and only up to a size bound. A named pipe would block the reader until
// something writes to it, /dev/zero (or a symlink to it) would grow the text
// until memory runs out, and a directory is not a file; each is refused
// before a byte is read, a file larger than the bound by its size. Opening
// never blocks (O_NONBLOCK), so a pipe is seen for what it is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fuserlab::ir {

//! The largest script FuserLab reads (the CLI, the workbench, the tuning
//! worker). Real repros are kilobytes; reading one takes several times its
//! size in memory, so the bound keeps a stray multi-gigabyte file from
//! taking the machine's memory.
inline constexpr uint64_t kMaxScriptBytes = uint64_t{32} << 20;

//! Why a file was not read.
enum class FileProblem {
  None,
  Missing,     //!< no such file
  NotRegular,  //!< a directory, named pipe, device, socket (or a symlink,
               //!< where symlinks are not followed)
  TooLarge,    //!< more than the bound
  Unreadable,  //!< permissions, I/O errors
};

struct BoundedRead {
  std::string bytes;  //!< the whole file when `problem` is None
  FileProblem problem = FileProblem::None;
  std::string reason;  //!< why, in words ("it is a named pipe"); empty when read
};

//! Reads the regular file at `path`, at most `maxBytes` of it. With
//! `followSymlinks` false a symlink is refused (NotRegular) rather than
//! followed. Never throws for what is at `path` and never blocks on it.
BoundedRead readBoundedFile(const std::string& path, uint64_t maxBytes, bool followSymlinks = true);

//! readBoundedFile with any problem a UserError: "cannot read the WHAT
//! 'PATH': it is a named pipe; FuserLab reads only regular files".
std::string readUserFile(const std::string& path, std::string_view what, uint64_t maxBytes);

//! Throws the same UserError unless `path` is a regular file of at most
//! `maxBytes`; returns its size. For readers that stream the file (.npy)
//! rather than hold it whole.
uint64_t requireRegularFile(const std::string& path, std::string_view what, uint64_t maxBytes);

//! "32 MiB", "1.5 GiB", "812 bytes": a size for a message.
std::string describeBytes(uint64_t bytes);

}  // namespace fuserlab::ir
