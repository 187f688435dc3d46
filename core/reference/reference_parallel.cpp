#include "core/reference/reference_parallel.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace fuserlab::runtime::reference {

int referenceThreads() {
  constexpr int kMaxThreads = 32;
  // Read at each call (a getenv, against loops of 100,000 elements or more),
  // so a process can change it between runs.
  if (const char* set = std::getenv("FUSERLAB_REFERENCE_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(set, &end, 10);
    if (end != set && *end == '\0' && value >= 1) {
      return static_cast<int>(std::min<long>(value, kMaxThreads));
    }
  }
  const unsigned hardware = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp<unsigned>(hardware, 1, kMaxThreads));
}

}  // namespace fuserlab::runtime::reference
