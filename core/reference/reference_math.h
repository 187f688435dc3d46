// Element semantics of the reference executor's pointwise ops (internal):
// what one op does to one value of its compute type (float, double, int64_t;
// uint8_t 0/1 for logical ops), matching PyTorch's CPU kernels.
//
// Integer arithmetic wraps (it goes through uint64_t, so overflow is defined)
// and divides as C does (truncation); remainder takes the divisor's sign as
// Python does, fmod the dividend's as C does. Floating maximum/minimum, clamp
// and max/min reductions propagate NaN. Callers check integer divisors for
// zero before calling the division helpers.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace fuserlab::runtime::reference {

template <class T>
constexpr bool kIsFloating = std::is_floating_point_v<T>;

template <class T>
T wrappingAdd(T a, T b) {
  if constexpr (kIsFloating<T>) {
    return a + b;
  } else {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  }
}

template <class T>
T wrappingSub(T a, T b) {
  if constexpr (kIsFloating<T>) {
    return a - b;
  } else {
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  }
}

template <class T>
T wrappingMul(T a, T b) {
  if constexpr (kIsFloating<T>) {
    return a * b;
  } else {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  }
}

template <class T>
T wrappingNeg(T a) {
  return wrappingSub(T(0), a);
}

//! C division: truncation for integers (b != 0; INT64_MIN / -1 wraps).
template <class T>
T divide(T a, T b) {
  if constexpr (kIsFloating<T>) {
    return a / b;
  } else {
    return b == -1 ? wrappingNeg(a) : a / b;
  }
}

//! C fmod: the result has the dividend's sign.
template <class T>
T fmodOf(T a, T b) {
  if constexpr (kIsFloating<T>) {
    return std::fmod(a, b);
  } else {
    return b == -1 ? 0 : a % b;
  }
}

//! Python remainder: the result has the divisor's sign (ATen's CPU kernel).
template <class T>
T remainderOf(T a, T b) {
  T r = fmodOf(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

//! Division rounding towards +infinity.
template <class T>
T ceilDivide(T a, T b) {
  if constexpr (kIsFloating<T>) {
    return std::ceil(a / b);
  } else {
    const T q = divide(a, b);
    const bool inexact = fmodOf(a, b) != 0;
    return inexact && ((a < 0) == (b < 0)) ? q + 1 : q;
  }
}

//! pow; for integers by repeated squaring (wrapping), and as PyTorch for
//! negative exponents: 1 for a base of 1, +-1 for -1, 0 otherwise.
template <class T>
T power(T base, T exponent) {
  if constexpr (kIsFloating<T>) {
    return std::pow(base, exponent);
  } else {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) != 0 ? -1 : 1;
      return 0;
    }
    T result = 1;
    T square = base;
    for (T e = exponent; e != 0; e >>= 1) {
      if ((e & 1) != 0) result = wrappingMul(result, square);
      square = wrappingMul(square, square);
    }
    return result;
  }
}

template <class T>
bool isNanValue(T x) {
  if constexpr (kIsFloating<T>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

//! torch.maximum: NaN if either operand is NaN.
template <class T>
T maximumOf(T a, T b) {
  if (isNanValue(a)) return a;
  if (isNanValue(b)) return b;
  return a < b ? b : a;
}

template <class T>
T minimumOf(T a, T b) {
  if (isNanValue(a)) return a;
  if (isNanValue(b)) return b;
  return b < a ? b : a;
}

template <class T>
T leftShift(T a, T b) {
  if (b < 0 || b >= 64) return 0;
  return static_cast<T>(static_cast<uint64_t>(a) << b);
}

template <class T>
T rightShift(T a, T b) {
  if (b < 0 || b >= 64) return a < 0 ? -1 : 0;
  return a >> b;
}

//! torch.lerp: the two-sided formula that is exact at both ends.
template <class T>
T lerpOf(T start, T end, T weight) {
  const T difference = end - start;
  return std::abs(weight) < T(0.5) ? start + weight * difference
                                   : end - difference * (T(1) - weight);
}

//! torch.clamp: NaN in x or in a bound gives NaN.
template <class T>
T clampOf(T x, T low, T high) {
  return minimumOf(maximumOf(x, low), high);
}

template <class T>
T sigmoidOf(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

//! 0 for 0 and NaN, else +-1 (ATen's `(0 < x) - (x < 0)`).
template <class T>
T signOf(T x) {
  return static_cast<T>((T(0) < x) - (x < T(0)));
}

template <class T>
T reluOf(T x) {
  if (isNanValue(x)) return x;
  return x > T(0) ? x : T(0);
}

//! erfinv: Giles' single-precision approximation ("Approximating the erfinv
//! function", 2010) in double, refined with two Newton steps on erf.
inline double erfinvOf(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (y == 1.0) return std::numeric_limits<double>::infinity();
  if (y == -1.0) return -std::numeric_limits<double>::infinity();
  double w = -std::log((1.0 - y) * (1.0 + y));
  double x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * y;
  }
  const double kTwoOverSqrtPi = 1.1283791670955126;
  for (int step = 0; step < 2; ++step) {
    x -= (std::erf(x) - y) / (kTwoOverSqrtPi * std::exp(-x * x));
  }
  return x;
}

}  // namespace fuserlab::runtime::reference
