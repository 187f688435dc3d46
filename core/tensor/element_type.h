// How tensor elements are stored on the host and how one element type is
// converted to another.
//
// Storage: Bool as uint8_t holding 0 or 1, Int32 as int32_t, Int as int64_t,
// Half and BFloat16 as the structs of float16.h, Float as float, Double as
// double. Conversions (`castElement`) follow what the generated CUDA code does,
// so a CPU reference agrees with the GPU: floating-point targets are correctly
// rounded (once) to nearest even; floating point to integer truncates towards
// zero, saturates at the integer range and maps NaN to 0; Int to Int32 wraps;
// anything to Bool is `value != 0` (NaN is true).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/ir/data_type.h"
#include "core/ir/error.h"
#include "core/tensor/float16.h"

namespace fuserlab::runtime {

//! The host storage type of `dtype`'s elements: ElementType<DataType::Half>::type is Half.
template <ir::DataType dtype>
struct ElementType;
template <>
struct ElementType<ir::DataType::Bool> {
  using type = uint8_t;
};
template <>
struct ElementType<ir::DataType::Int32> {
  using type = int32_t;
};
template <>
struct ElementType<ir::DataType::Int> {
  using type = int64_t;
};
template <>
struct ElementType<ir::DataType::Half> {
  using type = Half;
};
template <>
struct ElementType<ir::DataType::BFloat16> {
  using type = BFloat16;
};
template <>
struct ElementType<ir::DataType::Float> {
  using type = float;
};
template <>
struct ElementType<ir::DataType::Double> {
  using type = double;
};

//! A value standing for a type in a generic lambda: `[]<class T>(TypeTag<T>)`.
template <class T>
struct TypeTag {
  using type = T;
};

//! Calls `visit(TypeTag<T>{})` with the storage type T of `dtype`.
//! DataType::Null is an internal error: callers check user dtypes first.
template <class Visit>
decltype(auto) dispatchElementType(ir::DataType dtype, Visit&& visit) {
  using ir::DataType;
  switch (dtype) {
    case DataType::Bool: return visit(TypeTag<uint8_t>{});
    case DataType::Int32: return visit(TypeTag<int32_t>{});
    case DataType::Int: return visit(TypeTag<int64_t>{});
    case DataType::Half: return visit(TypeTag<Half>{});
    case DataType::BFloat16: return visit(TypeTag<BFloat16>{});
    case DataType::Float: return visit(TypeTag<float>{});
    case DataType::Double: return visit(TypeTag<double>{});
    case DataType::Null: break;
  }
  throw InternalError(
      ::fuserlab::detail::concat("no element type for DataType::", ir::toString(dtype),
                                 " (this is a FuserLab bug, please report it)"));
}

namespace detail {

template <class T>
constexpr bool kIsBoolStorage = std::is_same_v<T, uint8_t> || std::is_same_v<T, bool>;
template <class T>
constexpr bool kIsHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

//! int64 -> double with round-to-odd, so a later rounding to float/half is
//! still a single correct rounding (plain conversion would round twice for
//! |value| > 2^53).
inline double int64ToDoubleRoundToOdd(int64_t value) {
  const uint64_t magnitude =
      value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  if (magnitude < (uint64_t{1} << 53)) return static_cast<double>(value);
  const int droppedBits = 64 - std::countl_zero(magnitude) - 53;
  const uint64_t droppedMask = (uint64_t{1} << droppedBits) - 1;
  uint64_t kept = magnitude & ~droppedMask;
  if ((magnitude & droppedMask) != 0) kept |= uint64_t{1} << droppedBits;
  const double result = static_cast<double>(kept);  // exact: 53 significant bits
  return value < 0 ? -result : result;
}

//! Truncates towards zero, saturating; NaN gives 0 (CUDA's cvt.rzi.sat).
template <class Int>
Int floatingToInteger(double value) {
  constexpr double kLimit = -static_cast<double>(std::numeric_limits<Int>::min());
  if (std::isnan(value)) return 0;
  if (value >= kLimit) return std::numeric_limits<Int>::max();
  if (value <= -kLimit) return std::numeric_limits<Int>::min();
  return static_cast<Int>(value);
}

//! The widest exact host representation of a stored value: double for
//! floating point, int64 for integers, bool for Bool.
template <class Src>
auto widen(Src value) {
  if constexpr (kIsHalfLike<Src>) {
    return static_cast<double>(value.toFloat());
  } else if constexpr (kIsBoolStorage<Src>) {
    return value != 0;
  } else if constexpr (std::is_integral_v<Src>) {
    return static_cast<int64_t>(value);
  } else {
    return static_cast<double>(value);
  }
}

}  // namespace detail

//! Converts one element (storage type `Src`) to storage type `Dst` with the
//! rules in this file's header comment.
template <class Dst, class Src>
Dst castElement(Src value) {
  using detail::kIsBoolStorage;
  using detail::kIsHalfLike;
  if constexpr (std::is_same_v<Dst, Src> && !kIsBoolStorage<Dst>) {
    return value;
  } else if constexpr (kIsBoolStorage<Dst>) {
    if constexpr (kIsHalfLike<Src>) {
      return static_cast<Dst>(value.toFloat() != 0.0f);
    } else {
      return static_cast<Dst>(value != 0);
    }
  } else if constexpr (kIsHalfLike<Dst>) {
    if constexpr (std::is_same_v<Src, float>) {
      return Dst::fromFloat(value);
    } else if constexpr (kIsHalfLike<Src>) {
      return Dst::fromFloat(value.toFloat());
    } else if constexpr (kIsBoolStorage<Src>) {
      return Dst::fromFloat(value != 0 ? 1.0f : 0.0f);
    } else if constexpr (std::is_same_v<Src, int64_t>) {
      return Dst::fromDouble(detail::int64ToDoubleRoundToOdd(value));
    } else {
      return Dst::fromDouble(static_cast<double>(value));  // double, int32: exact
    }
  } else if constexpr (std::is_floating_point_v<Dst>) {
    // One rounding: int64 -> float and double -> float convert directly.
    if constexpr (kIsHalfLike<Src>) {
      return static_cast<Dst>(value.toFloat());
    } else if constexpr (kIsBoolStorage<Src>) {
      return value != 0 ? Dst(1) : Dst(0);
    } else {
      return static_cast<Dst>(value);
    }
  } else {
    static_assert(std::is_integral_v<Dst>, "unsupported element type");
    const auto wide = detail::widen(value);
    if constexpr (std::is_same_v<std::remove_cv_t<decltype(wide)>, double>) {
      return detail::floatingToInteger<Dst>(wide);
    } else {
      return static_cast<Dst>(wide);  // bool -> 0/1; int64 -> int32 wraps
    }
  }
}

}  // namespace fuserlab::runtime
