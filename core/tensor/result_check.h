// Result checking: a GPU output compared element by element with the CPU
// reference's, with tolerances by dtype. The reference rounds every op to its
// output dtype and sums pairwise, a kernel keeps float intermediates and sums
// in its own order, so floating results may differ by rounding, never by
// more:
//   bfloat16  rtol 1e-2, atol 1e-2
//   half      rtol 1e-3, atol 1e-3
//   float     rtol 1e-5, atol 1e-5 + 1e-6 * max|reference|
//   double    rtol 1e-10, atol 1e-10 + 1e-12 * max|reference|
//   integers and bool: exact.
// An element passes when |actual - expected| <= atol + rtol * |expected|;
// infinities must match exactly, and NaN is right where, and only where, the
// reference has NaN.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/data_type.h"
#include "core/ir/fusion.h"
#include "core/tensor/tensor.h"

namespace fuserlab::runtime {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
  //! Added to atol, times the largest finite |expected| of the tensor: an
  //! absolute floor that scales with the data (sums that cancel).
  double atolOfMax = 0;
};

//! The tolerance of the table above for `dtype`.
Tolerance toleranceFor(ir::DataType dtype);

//! The tolerance for output `index` of `fusion`: for a floating output, the
//! loosest of the table's over its dtype and the floating dtype of every
//! value computed on its way from the inputs (a Double output cast from
//! Float math is only as exact as Float); for other outputs, exact.
Tolerance toleranceForOutput(const ir::Fusion& fusion, size_t index);

//! The tolerance for input `index` of `fusion` as it reads after a run: the
//! loosest toleranceForOutput over the outputs written into it in place
//! (`add_output(T, alias_input=...)`); an input nothing writes keeps its
//! dtype's tolerance.
Tolerance toleranceForInputAfterRun(const ir::Fusion& fusion, size_t index);

struct TensorCheck {
  bool passed = true;
  int64_t elements = 0;
  int64_t mismatches = 0;
  //! The element furthest outside its tolerance (when passed, the one
  //! closest to it), as a logical index; empty for an empty tensor.
  std::vector<int64_t> worstIndex;
  double worstActual = 0;
  double worstExpected = 0;
  double maxAbsError = 0;
  //! One line for the user: what was compared and, on failure, how many
  //! elements differ and the worst one with both values.
  std::string message;
};

//! Compares CPU tensors `actual` and `expected` (same dtype and sizes, any
//! strides) with `tolerance`, or toleranceFor(dtype) when not given. `name`
//! names the output in the message. A dtype or shape mismatch fails the
//! check (it is the result that is wrong, not the user's input).
TensorCheck checkTensor(const Tensor& actual, const Tensor& expected, std::string_view name,
                        std::optional<Tolerance> tolerance = std::nullopt);

}  // namespace fuserlab::runtime
