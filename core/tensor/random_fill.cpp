#include "core/tensor/random_fill.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/tensor/element_type.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

//! xoshiro256** 1.0 (Blackman and Vigna), state filled by splitmix64.
class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed) {
    for (uint64_t& word : state_) word = splitmix64(seed);
  }

  uint64_t next() {
    const uint64_t result = std::rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = std::rotl(state_[3], 45);
    return result;
  }

  //! Uniform in [0, 1) on a grid of 2^-53.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  //! Uniform in [0, range) without bias (Lemire's multiply-shift with rejection).
  uint64_t below(uint64_t range) {
    __extension__ using Uint128 = unsigned __int128;
    Uint128 product = static_cast<Uint128>(next()) * range;
    uint64_t low = static_cast<uint64_t>(product);
    if (low < range) {
      const uint64_t threshold = (0 - range) % range;
      while (low < threshold) {
        product = static_cast<Uint128>(next()) * range;
        low = static_cast<uint64_t>(product);
      }
    }
    return static_cast<uint64_t>(product >> 64);
  }

 private:
  std::array<uint64_t, 4> state_{};
};

//! Natural logarithm of a positive normal double with IEEE basic operations
//! only (libm's log may differ in the last bit between platforms):
//! log(2^e m) = e log 2 + 2 atanh((m - 1) / (m + 1)), m in [sqrt(1/2), sqrt(2)).
double portableLog(double x) {
  constexpr double kLn2High = 0x1.62e42fee00000p-1;  // low bits zero: e * hi exact
  constexpr double kLn2Low = 0x1.a39ef35793c76p-33;
  constexpr double kSqrt2 = 1.4142135623730951;
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  int64_t exponent = static_cast<int64_t>(bits >> 52) - 1023;
  double mantissa = std::bit_cast<double>((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  if (mantissa > kSqrt2) {
    mantissa *= 0.5;
    exponent += 1;
  }
  const double s = (mantissa - 1.0) / (mantissa + 1.0);  // |s| <= 0.1716
  const double s2 = s * s;
  // atanh(s)/s - 1 = s^2/3 + s^4/5 + ...; s^2 <= 0.0295, so 11 terms leave
  // under 1e-19 relative error.
  // Estrin's scheme (a fixed evaluation order, so still deterministic) keeps
  // the dependency chain short; c[k] = 1 / (2k + 3).
  constexpr std::array<double, 11> c = {1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11, 1.0 / 13,
                                        1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};
  const double s4 = s2 * s2;
  const double s8 = s4 * s4;
  const double low4 = (c[0] + c[1] * s2) + (c[2] + c[3] * s2) * s4;
  const double high4 = (c[4] + c[5] * s2) + (c[6] + c[7] * s2) * s4;
  const double top = (c[8] + c[9] * s2) + c[10] * s4;
  const double series = s2 * ((low4 + high4 * s8) + top * (s8 * s8));
  const double e = static_cast<double>(exponent);
  const double twoS = 2.0 * s;
  return e * kLn2High + (twoS + (twoS * series + e * kLn2Low));
}

template <class T>
double toDouble(T value) {
  return castElement<double>(value);
}

//! The next representable value of T towards -infinity.
template <class T>
T nextDown(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::nextafter(value, -std::numeric_limits<T>::infinity());
  } else {
    uint16_t bits = value.bits;
    if ((bits & 0x7FFF) == 0) {
      bits = 0x8001;  // from +-0 to the negative smallest subnormal
    } else if (bits & 0x8000) {
      bits += 1;
    } else {
      bits -= 1;
    }
    return T{bits};
  }
}

//! Writes `next()` to every element of `tensor` in logical row-major order.
template <class T, class Next>
void fillLogical(Tensor& tensor, Next&& next) {
  T* elements = tensor.dataAs<T>();
  if (tensor.isContiguous()) {
    const int64_t numel = tensor.numel();
    for (int64_t i = 0; i < numel; ++i) elements[i] = next();
    return;
  }
  forEachOffset(tensor.sizes(), tensor.strides(),
                [&](int64_t offset) { elements[offset] = next(); });
}

void checkFillable(const Tensor& tensor, const char* what) {
  FL_ASSERT(tensor.defined(), what, " on an undefined tensor");
  FL_CHECK(tensor.isCpu(), what, " needs a CPU tensor, got ", tensor.toString());
}

void fillRandomBools(Tensor& tensor, uint64_t seed) {
  Xoshiro256 generator(seed);
  fillLogical<uint8_t>(tensor, [&] { return static_cast<uint8_t>(generator.next() >> 63); });
}

//! Uniform integers in [low, high) (low < high), cast to the dtype.
void fillIntegers(Tensor& tensor, uint64_t seed, int64_t low, int64_t high) {
  Xoshiro256 generator(seed);
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  dispatchElementType(tensor.dtype(), [&]<class T>(TypeTag<T>) {
    fillLogical<T>(tensor, [&] {
      const int64_t value =
          static_cast<int64_t>(static_cast<uint64_t>(low) + generator.below(range));
      return castElement<T>(value);
    });
  });
}

std::pair<int64_t, int64_t> integerRange(DataType dtype) {
  switch (dtype) {
    case DataType::Bool: return {0, 1};
    case DataType::Int32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

//! The largest finite value of a floating dtype.
double floatingMax(DataType dtype) {
  switch (dtype) {
    case DataType::Half: return 65504.0;
    case DataType::BFloat16: return 0x1.FEp127;
    case DataType::Float: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}

void checkBounds(double low, double high, const char* what) {
  FL_CHECK(std::isfinite(low) && std::isfinite(high), what,
           ": low and high must be finite, got low=", low, ", high=", high);
  FL_CHECK(low <= high, what, ": low must not exceed high, got low=", low, ", high=", high);
}

//! Integers in [ceil(low), ceil(high)) clamped to the dtype's range, as
//! make_tensor does for integral dtypes.
void fillIntegersFromReal(Tensor& tensor, uint64_t seed, double low, double high,
                          const char* what) {
  const auto [dtypeMin, dtypeMax] = integerRange(tensor.dtype());
  const int64_t lowInt =
      std::clamp(detail::floatingToInteger<int64_t>(std::ceil(low)), dtypeMin, dtypeMax);
  const int64_t highInt =
      std::clamp(detail::floatingToInteger<int64_t>(std::ceil(high)), dtypeMin, dtypeMax);
  FL_CHECK(lowInt < highInt, what, ": no ", ir::toString(tensor.dtype()), " value lies in [", low,
           ", ", high, ")");
  fillIntegers(tensor, seed, lowInt, highInt);
}

template <class T>
void fillUniformFloating(Tensor& tensor, uint64_t seed, double low, double high) {
  if (low == high) {
    tensor.fill(low);
    return;
  }
  // As PyTorch's make_tensor: a range wider than the largest double is drawn
  // at half scale and doubled.
  const bool halfScale = !std::isfinite(high - low);
  const double scaledLow = halfScale ? low / 2 : low;
  const double width = halfScale ? high / 2 - low / 2 : high - low;
  // Rounding to the dtype can reach `high`; such draws take the largest value
  // below it (or low's rounding when no representable value is in range).
  T belowHigh = castElement<T>(high);
  while (toDouble(belowHigh) >= high) belowHigh = nextDown(belowHigh);
  if (toDouble(belowHigh) < low) belowHigh = castElement<T>(low);

  Xoshiro256 generator(seed);
  fillLogical<T>(tensor, [&] {
    double value = scaledLow + width * generator.uniform();
    if (halfScale) value *= 2;
    const T rounded = castElement<T>(value);
    return toDouble(rounded) >= high ? belowHigh : rounded;
  });
}

std::string formatNumber(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace

void fillNormal(Tensor& tensor, uint64_t seed, double mean, double std) {
  checkFillable(tensor, "fillNormal");
  FL_CHECK(ir::isFloatingPoint(tensor.dtype()),
           "randn / normal needs a floating-point tensor, got ", ir::toString(tensor.dtype()));
  FL_CHECK(std::isfinite(mean) && std::isfinite(std) && std >= 0,
           "fillNormal: mean must be finite and std finite and non-negative, "
           "got mean=",
           mean, ", std=", std);
  Xoshiro256 generator(seed);
  // Marsaglia's polar method: each accepted point gives two samples.
  bool haveSpare = false;
  double spare = 0.0;
  auto nextNormal = [&]() -> double {
    if (haveSpare) {
      haveSpare = false;
      return spare;
    }
    double u = 0.0, v = 0.0, radiusSquared = 0.0;
    do {
      u = 2.0 * generator.uniform() - 1.0;
      v = 2.0 * generator.uniform() - 1.0;
      radiusSquared = u * u + v * v;
    } while (radiusSquared >= 1.0 || radiusSquared == 0.0);
    const double factor = std::sqrt(-2.0 * portableLog(radiusSquared) / radiusSquared);
    spare = v * factor;
    haveSpare = true;
    return u * factor;
  };
  dispatchElementType(tensor.dtype(), [&]<class T>(TypeTag<T>) {
    fillLogical<T>(tensor, [&] { return castElement<T>(mean + std * nextNormal()); });
  });
}

void fillUniform(Tensor& tensor, uint64_t seed, double low, double high) {
  checkFillable(tensor, "fillUniform");
  checkBounds(low, high, "fillUniform");
  const DataType dtype = tensor.dtype();
  if (dtype == DataType::Bool) {
    fillRandomBools(tensor, seed);
  } else if (ir::isIntegral(dtype)) {
    fillIntegersFromReal(tensor, seed, low, high, "fillUniform");
  } else {
    const double limit = floatingMax(dtype);
    FL_CHECK(low >= -limit && high <= limit, "fillUniform: [", low, ", ", high,
             ") is outside the finite range of ", ir::toString(dtype), " (+-", limit, ")");
    dispatchElementType(dtype, [&]<class T>(TypeTag<T>) {
      if constexpr (!std::is_integral_v<T>) {
        fillUniformFloating<T>(tensor, seed, low, high);
      }
    });
  }
}

void fillRandint(Tensor& tensor, uint64_t seed, int64_t low, int64_t high) {
  checkFillable(tensor, "fillRandint");
  FL_CHECK(low < high, "randint: low must be below high, got low=", low, ", high=", high);
  const DataType dtype = tensor.dtype();
  if (dtype == DataType::Bool || ir::isIntegral(dtype)) {
    const auto [dtypeMin, dtypeMax] = integerRange(dtype);
    FL_CHECK(low >= dtypeMin && high - 1 <= dtypeMax, "randint: [", low, ", ", high,
             ") does not fit ", ir::toString(dtype));
  }
  fillIntegers(tensor, seed, low, high);
}

void fillMakeTensor(Tensor& tensor, uint64_t seed, std::optional<double> low,
                    std::optional<double> high) {
  checkFillable(tensor, "fillMakeTensor");
  const DataType dtype = tensor.dtype();
  if (dtype == DataType::Bool) {
    fillRandomBools(tensor, seed);
    return;
  }
  const bool floating = ir::isFloatingPoint(dtype);
  double lowValue = low.value_or(-9.0);
  double highValue = high.value_or(floating ? 9.0 : 10.0);
  FL_CHECK(!std::isnan(lowValue) && !std::isnan(highValue),
           "make_tensor: low and high must not be NaN");
  FL_CHECK(lowValue <= highValue, "make_tensor: low must not exceed high, got low=", lowValue,
           ", high=", highValue);
  if (!floating) {
    fillIntegersFromReal(tensor, seed, lowValue, highValue, "make_tensor");
    return;
  }
  const double limit = floatingMax(dtype);
  lowValue = std::clamp(lowValue, -limit, limit);
  highValue = std::clamp(highValue, -limit, limit);
  fillUniform(tensor, seed, lowValue, highValue);
}

void fillArange(Tensor& tensor, double start, double step) {
  checkFillable(tensor, "fillArange");
  FL_CHECK(std::isfinite(start) && std::isfinite(step),
           "arange: start and step must be finite, got start=", start, ", step=", step);
  constexpr double kInt64Bound = 0x1.0p63;
  const bool integral = std::trunc(start) == start && std::trunc(step) == step &&
                        std::fabs(start) < kInt64Bound && std::fabs(step) < kInt64Bound;
  dispatchElementType(tensor.dtype(), [&]<class T>(TypeTag<T>) {
    int64_t index = 0;
    if (integral) {
      const auto startInt = static_cast<int64_t>(start);
      const auto stepInt = static_cast<int64_t>(step);
      fillLogical<T>(tensor, [&] {
        // Two's complement wrap-around if it overflows, as int64 arithmetic on a GPU.
        const uint64_t value = static_cast<uint64_t>(startInt) +
                               static_cast<uint64_t>(index++) * static_cast<uint64_t>(stepInt);
        return castElement<T>(static_cast<int64_t>(value));
      });
    } else {
      fillLogical<T>(tensor,
                     [&] { return castElement<T>(start + static_cast<double>(index++) * step); });
    }
  });
}

void fillConstant(Tensor& tensor, double value) {
  checkFillable(tensor, "fillConstant");
  tensor.fill(value);
}

std::string_view toString(TensorInitializer::Kind kind) {
  using Kind = TensorInitializer::Kind;
  switch (kind) {
    case Kind::Randn: return "randn";
    case Kind::Rand: return "rand";
    case Kind::Randint: return "randint";
    case Kind::MakeTensor: return "make_tensor";
    case Kind::Ones: return "ones";
    case Kind::Zeros: return "zeros";
    case Kind::Full: return "full";
    case Kind::Arange: return "arange";
    case Kind::Values: return "tensor";
  }
  return "unknown";
}

void TensorInitializer::apply(Tensor& tensor, uint64_t seed) const {
  switch (kind) {
    case Kind::Randn: fillNormal(tensor, seed); return;
    case Kind::Rand:
      FL_CHECK(ir::isFloatingPoint(tensor.dtype()), "rand needs a floating-point tensor, got ",
               ir::toString(tensor.dtype()), "; use randint or make_tensor");
      fillUniform(tensor, seed, low.value_or(0.0), high.value_or(1.0));
      return;
    case Kind::Randint: {
      FL_CHECK(high.has_value(), "randint needs high");
      const double lowValue = low.value_or(0.0);
      const double highValue = *high;
      constexpr double kInt64Bound = 0x1.0p63;
      for (double bound : {lowValue, highValue}) {
        FL_CHECK(std::trunc(bound) == bound && std::fabs(bound) < kInt64Bound,
                 "randint: low and high must be 64-bit integers, got ", toString());
      }
      fillRandint(tensor, seed, static_cast<int64_t>(lowValue), static_cast<int64_t>(highValue));
      return;
    }
    case Kind::MakeTensor: fillMakeTensor(tensor, seed, low, high); return;
    case Kind::Ones: fillConstant(tensor, 1.0); return;
    case Kind::Zeros: fillConstant(tensor, 0.0); return;
    case Kind::Full:
      FL_CHECK(value.has_value(), "full needs a value");
      fillConstant(tensor, *value);
      return;
    case Kind::Arange: fillArange(tensor, start.value_or(0.0), step.value_or(1.0)); return;
    case Kind::Values: {
      checkFillable(tensor, "tensor");
      FL_CHECK(static_cast<int64_t>(data.size()) == tensor.numel(), "torch.tensor gives ",
               data.size(), " values for a tensor of ", tensor.numel(), " elements");
      dispatchElementType(tensor.dtype(), [&]<class T>(TypeTag<T>) {
        size_t index = 0;
        fillLogical<T>(tensor, [&] { return castElement<T>(data[index++]); });
      });
      return;
    }
  }
}

std::string TensorInitializer::toString() const {
  std::string parameters;
  const std::array<std::pair<const char*, const std::optional<double>*>, 5> fields = {
      {{"low", &low}, {"high", &high}, {"value", &value}, {"start", &start}, {"step", &step}}};
  for (const auto& [name, field] : fields) {
    if (!field->has_value()) continue;
    parameters += (parameters.empty() ? "" : ", ");
    parameters += std::string(name) + "=" + formatNumber(**field);
  }
  std::string out(runtime::toString(kind));
  if (kind == Kind::Values) parameters = std::to_string(data.size()) + " values";
  if (!parameters.empty()) out += "(" + parameters + ")";
  return out;
}

}  // namespace fuserlab::runtime
