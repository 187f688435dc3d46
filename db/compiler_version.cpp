#include "db/compiler_version.h"

#include <vector>

#include "core/ir/error.h"
#include "core/ir/parse_number.h"

#ifndef FUSERLAB_VERSION
#error "FUSERLAB_VERSION must be defined (db/CMakeLists.txt passes the project version)"
#endif

namespace fuserlab::db {
namespace {

constexpr int64_t kMaxComponent = 999'999'999;

std::vector<long long> components(std::string_view version) {
  std::vector<long long> parts;
  size_t begin = 0;
  while (true) {
    const size_t end = std::min(version.find('.', begin), version.size());
    const std::string_view part = version.substr(begin, end - begin);
    const std::optional<int64_t> number = ir::tryParseInteger(part, 0, kMaxComponent);
    FL_CHECK(number.has_value(), "compiler version '", version,
             "' is not of the form MAJOR.MINOR.PATCH (numbers from 0 to ", kMaxComponent, ")");
    parts.push_back(*number);
    if (end == version.size()) break;
    begin = end + 1;
  }
  return parts;
}

}  // namespace

std::string_view compilerVersion() { return FUSERLAB_VERSION; }

int compareVersions(std::string_view a, std::string_view b) {
  const auto x = components(a);
  const auto y = components(b);
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    const long long u = i < x.size() ? x[i] : 0;
    const long long v = i < y.size() ? y[i] : 0;
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

bool versionInRange(std::string_view version, std::string_view min,
                    const std::optional<std::string>& max) {
  if (compareVersions(version, min) < 0) return false;
  return !max || compareVersions(version, *max) < 0;
}

}  // namespace fuserlab::db
