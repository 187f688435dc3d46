#include "core/ir/error.h"

namespace fuserlab {
namespace {

std::string withLocationPrefix(const std::string& message,
                               const std::optional<SourceLocation>& location) {
  return location ? formatWithLocation(message, *location) : message;
}

}  // namespace

UserError::UserError(const std::string& message, std::optional<SourceLocation> location)
    : std::runtime_error(withLocationPrefix(message, location)),
      message_(message),
      location_(std::move(location)) {}

std::string formatWithLocation(const std::string& message, const SourceLocation& location) {
  std::ostringstream out;
  out << (location.file.empty() ? "<script>" : location.file) << ":" << location.line << ":"
      << location.column << ": error: " << message;
  if (!location.lineText.empty()) {
    out << "\n  " << location.lineText << "\n  ";
    // Keep tabs so the caret lines up under the same column in a terminal.
    for (int i = 1; i < location.column && i <= static_cast<int>(location.lineText.size()); ++i) {
      out << (location.lineText[i - 1] == '\t' ? '\t' : ' ');
    }
    out << '^';
  }
  return out.str();
}

}  // namespace fuserlab
