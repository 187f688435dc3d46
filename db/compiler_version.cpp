#include "db/compiler_version.h"

#include <vector>

#include "core/ir/error.h"

#ifndef FUSERLAB_VERSION
#error "FUSERLAB_VERSION must be defined (db/CMakeLists.txt passes the project version)"
#endif

namespace fuserlab::db {
namespace {

std::vector<long long> components(std::string_view version) {
  std::vector<long long> parts;
  size_t begin = 0;
  while (true) {
    const size_t end = std::min(version.find('.', begin), version.size());
    const std::string_view part = version.substr(begin, end - begin);
    FL_CHECK(!part.empty() && part.size() <= 9 &&
                 part.find_first_not_of("0123456789") == std::string_view::npos,
             "compiler version '", version,
             "' is not of the form MAJOR.MINOR.PATCH (numbers)");
    parts.push_back(std::stoll(std::string(part)));
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
