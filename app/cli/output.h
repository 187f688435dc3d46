// Writing what a command produces, to a file or to stdout: every write is
// checked, its flush and close included, so a full disk (or /dev/full) is
// an error the user sees (exit 2), never a success with the output lost.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fuserlab::cli {

//! Writes `bytes` to the file `path`, created or truncated; a failed open,
//! write or close is a UserError naming the path and the reason, and so is a
//! named pipe without a reader (ir::writeUserFile).
void writeOutputFile(const std::string& path, std::string_view bytes);

//! writeOutputFile, or std::cout when `path` is "-" (checked at the end by
//! finishStdout).
void writeOutput(const std::string& path, std::string_view bytes);

//! Flushes stdout (std::cout and C's stdout) and checks that every write to
//! it went through; returns why not, or nullopt. main() calls it after each
//! command.
std::optional<std::string> finishStdout();

}  // namespace fuserlab::cli
