// The source tree tests read example scripts, goldens and corpora from: the
// FUSERLAB_SOURCE_DIR environment variable when it is set (a test binary
// carried to another machine, where the tree sits elsewhere), else the tree
// the test was built from (the compile definition of the same name).
#pragma once

#include <cstdlib>
#include <string>

namespace fuserlab::test {

//! The source tree's root, without a trailing slash.
inline std::string sourceDir() {
  if (const char* dir = std::getenv("FUSERLAB_SOURCE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return FUSERLAB_SOURCE_DIR;
}

}  // namespace fuserlab::test
