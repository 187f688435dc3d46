// Deterministic tensor initialisation: the torch constructors FuserLab's
// inputs are described with (randn, rand, randint, make_tensor, ones, zeros,
// full, arange), reimplemented on xoshiro256** seeded through splitmix64.
//
// Invariant: the values depend only on (seed, dtype, sizes, parameters) -
// never on the platform, the compiler or the tensor's strides. Elements are
// drawn in logical row-major order, no std:: distribution or libm
// transcendental is used, and every value is computed in double with IEEE
// basic operations (this file is built with -ffp-contract=off) and then
// rounded once to the tensor's dtype. The values are not PyTorch's bit for
// bit; they follow the same distributions and bounds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor/tensor.h"

namespace fuserlab::runtime {

//! Normal(mean, std) samples, as torch.randn * std + mean. Floating dtypes only.
void fillNormal(Tensor& tensor, uint64_t seed, double mean = 0.0, double std = 1.0);

//! Uniform samples in [low, high), as torch.rand / Tensor.uniform_. Values are
//! rounded to the dtype and kept below `high`. Integer dtypes draw integers in
//! [ceil(low), ceil(high)) clamped to the dtype's range; Bool draws true/false
//! with equal probability whatever the bounds.
void fillUniform(Tensor& tensor, uint64_t seed, double low = 0.0, double high = 1.0);

//! Uniform integers in [low, high) (unbiased), as torch.randint; the range
//! must fit the dtype (Bool: within [0, 2)); floating dtypes round.
void fillRandint(Tensor& tensor, uint64_t seed, int64_t low, int64_t high);

//! torch.testing.make_tensor: uniform in [low, high) with PyTorch's defaults -
//! floating point [-9, 9), integers [-9, 10), Bool random true/false - and its
//! clamping of the bounds to the dtype's range.
void fillMakeTensor(Tensor& tensor, uint64_t seed, std::optional<double> low = std::nullopt,
                    std::optional<double> high = std::nullopt);

//! start + i * step for the i-th element in logical row-major order, as
//! torch.arange(...).reshape(sizes). Exact in int64 for integral start/step.
void fillArange(Tensor& tensor, double start = 0.0, double step = 1.0);

//! Every element set to `value`, rounded to the dtype (torch.full).
void fillConstant(Tensor& tensor, double value);

//! A torch constructor for an input tensor, as data: what `--inputs`, the
//! GUI and the reports name, and what `apply` fills a tensor with.
struct TensorInitializer {
  enum class Kind : uint8_t { Randn, Rand, Randint, MakeTensor, Ones, Zeros, Full, Arange, Values };

  Kind kind = Kind::Randn;
  //! Rand, Randint (low defaults to 0, high required), MakeTensor.
  std::optional<double> low;
  std::optional<double> high;
  //! Full (required).
  std::optional<double> value;
  //! Arange (default 0 and 1).
  std::optional<double> start;
  std::optional<double> step;
  //! Values: every element in row-major order (torch.tensor([[1, 2], ...])).
  std::vector<double> data;

  static TensorInitializer randn() { return make(Kind::Randn); }
  static TensorInitializer rand() { return make(Kind::Rand); }
  static TensorInitializer randint(std::optional<double> low, double high) {
    TensorInitializer init = make(Kind::Randint);
    init.low = low;
    init.high = high;
    return init;
  }
  static TensorInitializer makeTensor(std::optional<double> low = std::nullopt,
                                      std::optional<double> high = std::nullopt) {
    TensorInitializer init = make(Kind::MakeTensor);
    init.low = low;
    init.high = high;
    return init;
  }
  static TensorInitializer ones() { return make(Kind::Ones); }
  static TensorInitializer zeros() { return make(Kind::Zeros); }
  static TensorInitializer full(double value) {
    TensorInitializer init = make(Kind::Full);
    init.value = value;
    return init;
  }
  static TensorInitializer arange(std::optional<double> start = std::nullopt,
                                  std::optional<double> step = std::nullopt) {
    TensorInitializer init = make(Kind::Arange);
    init.start = start;
    init.step = step;
    return init;
  }
  static TensorInitializer values(std::vector<double> elements) {
    TensorInitializer init = make(Kind::Values);
    init.data = std::move(elements);
    return init;
  }
  //! Just the kind, every parameter unset.
  static TensorInitializer make(Kind kind) {
    TensorInitializer init;
    init.kind = kind;
    return init;
  }

  //! Fills `tensor`; parameters the kind needs but lacks, or that do not fit
  //! the dtype, are UserErrors.
  void apply(Tensor& tensor, uint64_t seed) const;
  //! The kind's name plus the parameters that are set: "randn",
  //! "make_tensor(low=-1, high=1)", "full(value=0.5)".
  std::string toString() const;
};

//! "randn", "rand", "randint", "make_tensor", "ones", "zeros", "full", "arange".
std::string_view toString(TensorInitializer::Kind kind);

}  // namespace fuserlab::runtime
