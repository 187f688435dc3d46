#include "core/tensor/result_check.h"

#include "core/ir/expr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_set>

namespace fuserlab::runtime {
namespace {

std::string listString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out + "]";
}

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

// The logical index of the n-th element in row-major order.
std::vector<int64_t> unravel(int64_t n, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> index(sizes.size(), 0);
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = n % sizes[d];
    n /= sizes[d];
  }
  return index;
}

// How far an element is outside (> 1) or inside (<= 1) its tolerance;
// infinite for a NaN or infinity mismatch, or any difference under an exact
// tolerance.
double excessOf(double actual, double expected, double rtol, double atol) {
  const bool nanA = std::isnan(actual);
  const bool nanE = std::isnan(expected);
  if (nanA || nanE) return nanA == nanE ? 0.0 : INFINITY;
  if (std::isinf(actual) || std::isinf(expected)) {
    return actual == expected ? 0.0 : INFINITY;
  }
  const double diff = std::fabs(actual - expected);
  const double allowed = atol + rtol * std::fabs(expected);
  if (allowed == 0) return diff == 0 ? 0.0 : INFINITY;
  return diff / allowed;
}

// Calls visit(actualChunk, expectedChunk, firstIndex) over slices along axis 0
// of at most about kChunkElements elements, each converted to `wide` and
// contiguous, so a tensor of 2^31 elements is compared without a copy of it
// in 8-byte values. firstIndex is the chunk's first row-major position.
constexpr int64_t kChunkElements = int64_t{1} << 22;

template <class Visit>
void forEachChunk(const Tensor& actual, const Tensor& expected, ir::DataType wide, Visit&& visit) {
  if (expected.dim() == 0) {
    visit(actual.to(wide).contiguous(), expected.to(wide).contiguous(), 0);
    return;
  }
  const int64_t rows = expected.sizes()[0];
  const int64_t perRow = expected.numel() / rows;
  const int64_t step = std::max<int64_t>(1, kChunkElements / std::max<int64_t>(perRow, 1));
  std::vector<int64_t> sizes = expected.sizes();
  for (int64_t row = 0; row < rows; row += step) {
    sizes[0] = std::min(step, rows - row);
    auto slice = [&](const Tensor& t) {
      return t.asStrided(sizes, t.strides(), t.storageOffset() + row * t.strides()[0])
          .to(wide)
          .contiguous();
    };
    visit(slice(actual), slice(expected), row * perRow);
  }
}

}  // namespace

Tolerance toleranceFor(ir::DataType dtype) {
  switch (dtype) {
    case ir::DataType::BFloat16: return {1e-2, 1e-2, 0};
    case ir::DataType::Half: return {1e-3, 1e-3, 0};
    case ir::DataType::Float: return {1e-5, 1e-5, 1e-6};
    case ir::DataType::Double: return {1e-10, 1e-10, 1e-12};
    default: return {0, 0, 0};
  }
}

Tolerance toleranceForOutput(const ir::Fusion& fusion, size_t index) {
  const ir::Val* output = fusion.outputs().at(index).val;
  Tolerance loosest = toleranceFor(output->dtype());
  if (!ir::isFloatingPoint(output->dtype())) return loosest;
  auto widen = [&loosest](const Tolerance& t, double factor) {
    loosest.rtol = std::max(loosest.rtol, factor * t.rtol);
    loosest.atol = std::max(loosest.atol, factor * t.atol);
    loosest.atolOfMax = std::max(loosest.atolOfMax, factor * t.atolOfMax);
  };
  // (value, whether an op that is not a cast lies between it and the
  // output). A value rounded to Half or BFloat16 and then computed on is
  // rounded twice: one ulp of it, where the GPU's float math and the
  // reference's land on two sides of a rounding boundary, goes through the
  // later ops and the output's own rounding, so it gets two ulps (a GroupNorm
  // rounds to fp16 before its SiLU: 2 fp16 ulps at 4.47 on an H200).
  std::vector<std::pair<const ir::Val*, bool>> pending = {{output, false}};
  std::set<std::pair<const ir::Expr*, bool>> seen;
  while (!pending.empty()) {
    const auto [val, computedAfter] = pending.back();
    pending.pop_back();
    const ir::Expr* def = val->definition();
    if (def == nullptr || !seen.insert({def, computedAfter}).second) continue;
    const bool isCast = def->type() == ir::ExprType::Cast;
    for (const ir::Val* out : def->outputs()) {
      if (!ir::isFloatingPoint(out->dtype())) continue;
      const bool narrow =
          out->dtype() == ir::DataType::Half || out->dtype() == ir::DataType::BFloat16;
      widen(toleranceFor(out->dtype()), narrow && computedAfter ? 2.0 : 1.0);
    }
    for (const ir::Val* in : def->inputs()) pending.emplace_back(in, computedAfter || !isCast);
  }
  return loosest;
}

Tolerance toleranceForInputAfterRun(const ir::Fusion& fusion, size_t index) {
  const ir::Val* input = fusion.inputs().at(index);
  Tolerance loosest = toleranceFor(input->dtype());
  const std::vector<ir::FusionOutput>& outputs = fusion.outputs();
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k].aliasOf != input) continue;
    const Tolerance t = toleranceForOutput(fusion, k);
    loosest.rtol = std::max(loosest.rtol, t.rtol);
    loosest.atol = std::max(loosest.atol, t.atol);
    loosest.atolOfMax = std::max(loosest.atolOfMax, t.atolOfMax);
  }
  return loosest;
}

TensorCheck checkTensor(const Tensor& actual, const Tensor& expected, std::string_view name,
                        std::optional<Tolerance> tolerance) {
  TensorCheck check;
  const std::string label(name);
  if (actual.dtype() != expected.dtype() || actual.sizes() != expected.sizes()) {
    check.passed = false;
    check.message = label + ": the result is " + std::string(ir::toString(actual.dtype())) +
                    listString(actual.sizes()) + " but the reference is " +
                    std::string(ir::toString(expected.dtype())) + listString(expected.sizes());
    return check;
  }
  const Tolerance tol = tolerance.value_or(toleranceFor(expected.dtype()));
  const bool floating = ir::isFloatingPoint(expected.dtype());
  // Integers compare as int64 (exactly, also beyond 2^53); floats as double.
  const ir::DataType wide = floating ? ir::DataType::Double : ir::DataType::Int;
  const int64_t n = expected.numel();
  check.elements = n;
  if (n == 0) {
    check.message = label + ": empty, nothing to compare";
    return check;
  }
  auto value = [&](const Tensor& t, int64_t i) -> double {
    return floating ? t.dataAs<double>()[i] : double(t.dataAs<int64_t>()[i]);
  };

  double maxAbs = 0;
  if (floating) {
    forEachChunk(expected, expected, wide, [&](const Tensor& e, const Tensor&, int64_t) {
      for (int64_t i = 0; i < e.numel(); ++i) {
        const double v = std::fabs(value(e, i));
        if (std::isfinite(v)) maxAbs = std::max(maxAbs, v);
      }
    });
  }
  const double atol = tol.atol + tol.atolOfMax * maxAbs;

  double worstExcess = -1;
  int64_t worst = 0;
  if (!floating && actual.isContiguous() && expected.isContiguous()) {
    // Exact dtypes, both dense: compare the bytes (bool and integers have one
    // representation per value); no conversion of billions of elements.
    const auto* a = static_cast<const std::byte*>(actual.data());
    const auto* e = static_cast<const std::byte*>(expected.data());
    const size_t size = static_cast<size_t>(ir::sizeInBytes(expected.dtype()));
    for (int64_t i = 0; i < n; ++i) {
      if (std::memcmp(a + i * size, e + i * size, size) == 0) continue;
      ++check.mismatches;
      if (worstExcess < INFINITY) {
        worstExcess = INFINITY;
        worst = i;
      }
    }
    if (worstExcess < 0) worstExcess = 0;
    check.worstIndex = unravel(worst, expected.sizes());
    check.worstActual = actual.item(check.worstIndex);
    check.worstExpected = expected.item(check.worstIndex);
    check.maxAbsError = std::fabs(check.worstActual - check.worstExpected);
  } else {
    forEachChunk(actual, expected, wide, [&](const Tensor& a, const Tensor& e, int64_t first) {
      for (int64_t i = 0; i < e.numel(); ++i) {
        const double x = value(a, i);
        const double y = value(e, i);
        double excess;
        if (floating) {
          excess = excessOf(x, y, tol.rtol, atol);
          if (std::isfinite(x) && std::isfinite(y)) {
            check.maxAbsError = std::max(check.maxAbsError, std::fabs(x - y));
          }
        } else {
          excess = a.dataAs<int64_t>()[i] != e.dataAs<int64_t>()[i] ? INFINITY : 0.0;
          check.maxAbsError = std::max(check.maxAbsError, std::fabs(x - y));
        }
        if (excess > 1) ++check.mismatches;
        if (excess > worstExcess) {
          worstExcess = excess;
          worst = first + i;
          check.worstActual = x;
          check.worstExpected = y;
        }
      }
    });
  }
  check.passed = check.mismatches == 0;
  if (check.worstIndex.empty()) check.worstIndex = unravel(worst, expected.sizes());
  const std::string worstText = " at " + listString(check.worstIndex) + ": " +
                                number(check.worstActual) + " (result) vs " +
                                number(check.worstExpected) + " (reference)";
  const std::string tolText =
      floating ? " (rtol " + number(tol.rtol) + ", atol " + number(atol) + ")" : " (exact)";
  if (check.passed) {
    check.message = label + ": " + std::to_string(n) + " elements match" + tolText +
                    "; max |error| " + number(check.maxAbsError);
  } else {
    check.message = label + ": " + std::to_string(check.mismatches) + " of " + std::to_string(n) +
                    " elements differ" + tolText + "; worst" + worstText;
  }
  return check;
}

}  // namespace fuserlab::runtime
