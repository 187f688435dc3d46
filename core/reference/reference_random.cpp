// Random ops of the reference executor: uniform and normal values from the
// Philox generator the GPU kernels share (core/ir/random_numbers.h). Element
// i of the output, in row-major order of its logical shape, is a function of
// (seed, offset, i) alone, so the values match the GPU's bit for bit.
#include <cstdint>

#include "core/ir/error.h"
#include "core/ir/random_numbers.h"
#include "core/ir/random_op.h"
#include "core/reference/reference_internal.h"
#include "core/tensor/float16.h"

namespace fuserlab::runtime::reference {
namespace {

using ir::DataType;
namespace rng = ir::rng;

struct RoundToHalf {
  float operator()(float x) const { return roundToHalf(x); }
};
struct RoundToBFloat16 {
  float operator()(float x) const { return roundToBFloat16(x); }
};

struct Draw {
  bool standard = false;
  bool isUniform = true;
  uint64_t seed = 0;
  uint64_t offset = 0;
  double a = 0.0;
  double b = 1.0;
};

template <class Round>
void fillFloat(const Draw& d, float* out, int64_t count, bool narrow, Round round) {
  const float a = static_cast<float>(d.a);
  const float b = static_cast<float>(d.b);
  for (int64_t i = 0; i < count; ++i) {
    const auto index = static_cast<uint64_t>(i);
    if (d.isUniform) {
      out[i] = d.standard ? rng::uniformStandardF(d.seed, d.offset, index, round)
                          : rng::uniformRangeF(d.seed, d.offset, index, a, b, narrow, round);
    } else {
      out[i] = d.standard ? rng::normalStandardF(d.seed, d.offset, index, round)
                          : rng::normalGeneralF(d.seed, d.offset, index, a, b, round);
    }
  }
}

void fillDouble(const Draw& d, double* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    const auto index = static_cast<uint64_t>(i);
    if (d.isUniform) {
      out[i] = d.standard ? rng::uniformStandardD(d.seed, d.offset, index)
                          : rng::uniformRangeD(d.seed, d.offset, index, d.a, d.b);
    } else {
      out[i] = d.standard ? rng::normalStandardD(d.seed, d.offset, index)
                          : rng::normalGeneralD(d.seed, d.offset, index, d.a, d.b);
    }
  }
}

}  // namespace

void evaluateRandom(const ir::Expr& expr, ReferenceContext& context) {
  const auto* out = expr.output(0)->as<ir::TensorView>();
  FL_ASSERT(out != nullptr, expr.toString(), ": a random op makes a tensor");
  const DataType dtype = out->dtype();
  Draw draw;
  draw.standard = ir::isStandardRandom(expr);
  draw.isUniform = expr.attrs().randomOp == ir::RandomOpType::Uniform;
  // The seed and offset are 64-bit patterns: a negative Int is its two's
  // complement, as nvFuser passes it.
  draw.seed =
      static_cast<uint64_t>(context.intValue(ir::randomSeed(expr), expr.opName() + " rng_seed"));
  draw.offset = static_cast<uint64_t>(
      context.intValue(ir::randomOffset(expr), expr.opName() + " rng_offset"));
  const bool isUniform = draw.isUniform;
  draw.a = context.doubleValue(ir::randomParameterA(expr),
                               expr.opName() + (isUniform ? " minval" : " mean"));
  draw.b = context.doubleValue(ir::randomParameterB(expr),
                               expr.opName() + (isUniform ? " maxval" : " std"));

  const std::vector<int64_t> shape = context.shapeOf(out);
  if (dtype == DataType::Double) {
    Tensor values = Tensor::empty(DataType::Double, shape);
    fillDouble(draw, values.dataAs<double>(), values.numel());
    context.setTensor(out, std::move(values));
    return;
  }
  Tensor values = Tensor::empty(DataType::Float, shape);
  float* data = values.dataAs<float>();
  switch (dtype) {
    case DataType::Float: fillFloat(draw, data, values.numel(), false, rng::RoundIdentity()); break;
    case DataType::Half: fillFloat(draw, data, values.numel(), true, RoundToHalf()); break;
    case DataType::BFloat16: fillFloat(draw, data, values.numel(), true, RoundToBFloat16()); break;
    default: FL_ASSERT(false, expr.toString(), ": a random op of dtype ", ir::toString(dtype));
  }
  // Each value is already rounded to `dtype`: the conversion is exact.
  context.setTensor(out, values.to(dtype));
}

}  // namespace fuserlab::runtime::reference
