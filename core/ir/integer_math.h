// Integer math shared by the scalar evaluator and the CPU reference, so the
// two compute the same value (the generated code's twin is in the device
// header).
#pragma once

#include <cstdint>

namespace fuserlab::ir {

//! torch.gcd: the greatest common divisor of |a| and |b|, by Euclid on the
//! unsigned magnitudes (so INT64_MIN does not overflow); gcd(0, 0) is 0.
int64_t gcdOfMagnitudes(int64_t a, int64_t b);

}  // namespace fuserlab::ir
