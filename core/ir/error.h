// Errors, in two channels as nvFuser's NVF_CHECK / NVF_ERROR:
//   FL_CHECK  - bad input from the user (a script, a tensor, an option). The
//               message says what was expected, what was found and where.
//   FL_ASSERT - a broken invariant inside FuserLab: file:line, "please report".
// Both throw, so both are testable; nothing here aborts the process.
#pragma once

#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fuserlab {

//! A position in a user's script: 1-based line and column, and the line's text
//! so an error can be printed with a caret under the offending column.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string lineText;
};

//! Bad input from the user. Never a crash: the CLI exits 2 with `what()`.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message,
                     std::optional<SourceLocation> location = std::nullopt);

  //! The message without the location prefix or caret.
  const std::string& message() const { return message_; }
  const std::optional<SourceLocation>& location() const { return location_; }

 private:
  std::string message_;
  std::optional<SourceLocation> location_;
};

//! A broken invariant inside FuserLab (a bug, not the user's fault).
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

//! Formats "file:line:column: error: message\n  <line>\n  <caret>".
std::string formatWithLocation(const std::string& message, const SourceLocation& location);

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
}  // namespace detail

}  // namespace fuserlab

#define FL_CHECK(cond, ...)                                                 \
  do {                                                                      \
    if (!(cond)) [[unlikely]] {                                             \
      throw ::fuserlab::UserError(::fuserlab::detail::concat(__VA_ARGS__)); \
    }                                                                       \
  } while (0)

#define FL_ASSERT(cond, ...)                                                                 \
  do {                                                                                       \
    if (!(cond)) [[unlikely]] {                                                              \
      throw ::fuserlab::InternalError(::fuserlab::detail::concat(                            \
          "internal error at ", __FILE__, ":", __LINE__, ": `", #cond,                       \
          "` does not hold: ", __VA_ARGS__, " (this is a FuserLab bug, please report it)")); \
    }                                                                                        \
  } while (0)

//! Throws a UserError unconditionally (for `default:` branches on user input).
#define FL_USER_ERROR(...) throw ::fuserlab::UserError(::fuserlab::detail::concat(__VA_ARGS__))
