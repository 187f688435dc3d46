#include "core/ir/parse_number.h"

#include <charconv>
#include <string>

#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

// A pasted megabyte of digits is quoted by its start, not whole.
constexpr size_t kMaxQuotedChars = 40;

std::string quoted(std::string_view text) {
  if (text.size() <= kMaxQuotedChars) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kMaxQuotedChars)) + "...' (" +
         std::to_string(text.size()) + " characters)";
}

// from_chars on the whole of `text`; it takes no '+' and no spaces already.
template <typename T>
std::optional<T> parseWhole(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int64_t> tryParseInteger(std::string_view text, int64_t minimum, int64_t maximum) {
  const std::optional<int64_t> value = parseWhole<int64_t>(text);
  if (!value || *value < minimum || *value > maximum) return std::nullopt;
  return value;
}

int64_t parseInteger(std::string_view text, std::string_view what, int64_t minimum,
                     int64_t maximum) {
  const std::optional<int64_t> value = tryParseInteger(text, minimum, maximum);
  FL_CHECK(value.has_value(), what, " expects an integer from ", minimum, " to ", maximum,
           ", found ", quoted(text));
  return *value;
}

uint64_t parseUnsigned(std::string_view text, std::string_view what, uint64_t maximum) {
  const std::optional<uint64_t> value = parseWhole<uint64_t>(text);
  FL_CHECK(value.has_value() && *value <= maximum, what, " expects an integer from 0 to ", maximum,
           ", found ", quoted(text));
  return *value;
}

}  // namespace fuserlab::ir
