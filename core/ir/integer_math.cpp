#include "core/ir/integer_math.h"

namespace fuserlab::ir {

int64_t gcdOfMagnitudes(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  while (y != 0) {
    const uint64_t t = x % y;
    x = y;
    y = t;
  }
  return static_cast<int64_t>(x);
}

}  // namespace fuserlab::ir
