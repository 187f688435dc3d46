#include "core/tensor/random_fill.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;
using Kind = TensorInitializer::Kind;

std::vector<double> valuesOf(const Tensor& tensor) {
  const Tensor doubles = tensor.to(DataType::Double).contiguous();
  const double* data = doubles.dataAs<double>();
  return std::vector<double>(data, data + doubles.numel());
}

bool sameBytes(const Tensor& a, const Tensor& b) {
  const int64_t bytes = a.numel() * ir::sizeInBytes(a.dtype());
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), bytes) == 0;
}

Tensor filled(DataType dtype, std::vector<int64_t> sizes, const TensorInitializer& init,
              uint64_t seed) {
  Tensor t = Tensor::empty(dtype, std::move(sizes));
  init.apply(t, seed);
  return t;
}

const std::vector<DataType> kAllDtypes = {DataType::Bool,  DataType::Int32,    DataType::Int,
                                          DataType::Half,  DataType::BFloat16, DataType::Float,
                                          DataType::Double};
const std::vector<DataType> kFloatingDtypes = {DataType::Half, DataType::BFloat16, DataType::Float,
                                               DataType::Double};

TEST(RandomFillTest, SameSeedSameValuesDifferentSeedDifferentValues) {
  for (const TensorInitializer& init :
       {TensorInitializer::randn(), TensorInitializer::rand(), TensorInitializer::makeTensor()}) {
    for (DataType dtype : kFloatingDtypes) {
      SCOPED_TRACE(init.toString() + " " + std::string(ir::toString(dtype)));
      const Tensor a = filled(dtype, {1000}, init, 42);
      const Tensor b = filled(dtype, {1000}, init, 42);
      const Tensor c = filled(dtype, {1000}, init, 43);
      EXPECT_TRUE(sameBytes(a, b));
      EXPECT_FALSE(sameBytes(a, c));
      const std::vector<double> values = valuesOf(a);
      EXPECT_GT(std::set<double>(values.begin(), values.end()).size(), 100u);
    }
  }
  for (DataType dtype : {DataType::Int32, DataType::Int}) {
    const TensorInitializer randint = TensorInitializer::randint(0.0, 1000.0);
    EXPECT_TRUE(sameBytes(filled(dtype, {500}, randint, 1), filled(dtype, {500}, randint, 1)));
    EXPECT_FALSE(sameBytes(filled(dtype, {500}, randint, 1), filled(dtype, {500}, randint, 2)));
  }
}

// Guards cross-platform determinism: these values are what every platform
// must produce. If the generator or a transform changes on purpose, update them.
TEST(RandomFillTest, GoldenValuesPinTheGenerator) {
  Tensor normal = Tensor::empty(DataType::Double, {4});
  fillNormal(normal, 0);
  Tensor uniform = Tensor::empty(DataType::Double, {2});
  fillUniform(uniform, 0);
  Tensor ints = Tensor::empty(DataType::Int, {4});
  fillRandint(ints, 0, -100, 100);
  const std::vector<double> actual = [&] {
    std::vector<double> all = valuesOf(normal);
    for (double v : valuesOf(uniform)) all.push_back(v);
    for (double v : valuesOf(ints)) all.push_back(v);
    return all;
  }();
  const std::vector<double> golden = {0x1.323a82a4bc9e5p-1,
                                      0x1.76a54f2c0effap+0,
                                      -0x1.ca445408b789cp-1,
                                      -0x1.81270d2ddbad6p-3,
                                      0x1.33d8be6d96ebep-1,
                                      0x1.7edc3ef092ac8p-1,
                                      20,
                                      49,
                                      -80,
                                      -17};
  ASSERT_EQ(actual.size(), golden.size());
  for (size_t i = 0; i < golden.size(); ++i) EXPECT_EQ(actual[i], golden[i]) << i;
}

TEST(RandomFillTest, ValuesDependOnLogicalOrderNotLayout) {
  Tensor contiguous = Tensor::empty(DataType::Float, {6, 7});
  fillNormal(contiguous, 5);
  Tensor columnMajor = Tensor::emptyStrided(DataType::Float, {6, 7}, {1, 6});
  fillNormal(columnMajor, 5);
  EXPECT_EQ(valuesOf(contiguous), valuesOf(columnMajor));
}

TEST(RandomFillTest, RandnHasMeanZeroAndStdOne) {
  for (DataType dtype : {DataType::Float, DataType::BFloat16}) {
    Tensor t = Tensor::empty(dtype, {1000, 1000});
    fillNormal(t, 2024);
    double sum = 0, sumSquares = 0;
    int64_t beyondThreeSigma = 0;
    for (double v : valuesOf(t)) {
      sum += v;
      sumSquares += v * v;
      beyondThreeSigma += std::fabs(v) > 3.0;
    }
    const double mean = sum / 1e6;
    const double std = std::sqrt(sumSquares / 1e6 - mean * mean);
    // Standard errors are 0.001 (mean) and 0.0007 (std); bf16 rounding adds
    // under 0.001 to the std.
    EXPECT_NEAR(mean, 0.0, 0.005) << ir::toString(dtype);
    EXPECT_NEAR(std, 1.0, 0.005) << ir::toString(dtype);
    // Tails: P(|z| > 3) = 0.0027.
    EXPECT_NEAR(beyondThreeSigma / 1e6, 0.0027, 0.0003) << ir::toString(dtype);
  }
  Tensor shifted = Tensor::empty(DataType::Double, {100000});
  fillNormal(shifted, 1, 5.0, 0.5);
  double sum = 0;
  for (double v : valuesOf(shifted)) sum += v;
  EXPECT_NEAR(sum / 1e5, 5.0, 0.01);
}

TEST(RandomFillTest, RandStaysInRange) {
  for (DataType dtype : kFloatingDtypes) {
    Tensor t = Tensor::empty(dtype, {200000});
    fillUniform(t, 9);
    double minimum = 1, maximum = 0, sum = 0;
    for (double v : valuesOf(t)) {
      minimum = std::min(minimum, v);
      maximum = std::max(maximum, v);
      sum += v;
    }
    EXPECT_GE(minimum, 0.0) << ir::toString(dtype);
    EXPECT_LT(maximum, 1.0) << ir::toString(dtype);
    EXPECT_LT(minimum, 0.01) << ir::toString(dtype);
    EXPECT_GT(maximum, 0.99) << ir::toString(dtype);
    EXPECT_NEAR(sum / 200000, 0.5, 0.005) << ir::toString(dtype);
  }
}

TEST(RandomFillTest, UniformRoundingNeverReachesHigh) {
  // In bfloat16 most of [1, 1.0078) rounds to 1.0078 = high; those draws must
  // not produce high.
  Tensor t = Tensor::empty(DataType::BFloat16, {10000});
  fillUniform(t, 3, 0.5, 1.0078125);
  for (double v : valuesOf(t)) {
    ASSERT_GE(v, 0.5);
    ASSERT_LT(v, 1.0078125);
  }
}

TEST(RandomFillTest, RandintBounds) {
  for (DataType dtype : {DataType::Int32, DataType::Int, DataType::Float, DataType::Half}) {
    Tensor t = Tensor::empty(dtype, {100000});
    fillRandint(t, 11, -3, 4);
    std::set<double> seen;
    for (double v : valuesOf(t)) seen.insert(v);
    EXPECT_EQ(seen, (std::set<double>{-3, -2, -1, 0, 1, 2, 3})) << ir::toString(dtype);
  }
  Tensor wide = Tensor::empty(DataType::Int, {1000});
  fillRandint(wide, 1, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  int64_t negatives = 0;
  for (int64_t i = 0; i < 1000; ++i) negatives += wide.dataAs<int64_t>()[i] < 0;
  EXPECT_NEAR(negatives, 500, 80);

  Tensor i32 = Tensor::empty(DataType::Int32, {4});
  EXPECT_THROW(fillRandint(i32, 1, 0, int64_t{1} << 40), UserError);
  EXPECT_THROW(fillRandint(i32, 1, 5, 5), UserError);
  Tensor b = Tensor::empty(DataType::Bool, {4});
  EXPECT_THROW(fillRandint(b, 1, 0, 3), UserError);
}

TEST(RandomFillTest, MakeTensorDefaultsFollowPyTorch) {
  const TensorInitializer makeTensor = TensorInitializer::makeTensor();
  for (DataType dtype : kAllDtypes) {
    const Tensor t = filled(dtype, {50000}, makeTensor, 8);
    std::set<double> distinct;
    double minimum = 1e9, maximum = -1e9;
    for (double v : valuesOf(t)) {
      minimum = std::min(minimum, v);
      maximum = std::max(maximum, v);
      distinct.insert(v);
    }
    SCOPED_TRACE(std::string(ir::toString(dtype)));
    if (dtype == DataType::Bool) {
      EXPECT_EQ(distinct, (std::set<double>{0, 1}));
    } else if (ir::isIntegral(dtype)) {
      EXPECT_EQ(minimum, -9);
      EXPECT_EQ(maximum, 9);  // high 10 is exclusive
      EXPECT_EQ(distinct.size(), 19u);
    } else {
      EXPECT_GE(minimum, -9.0);
      EXPECT_LT(maximum, 9.0);
      EXPECT_LT(minimum, -8.9);
      EXPECT_GT(maximum, 8.9);
    }
  }
  // Explicit bounds; integers use [ceil(low), ceil(high)).
  const Tensor ints = filled(DataType::Int32, {10000}, TensorInitializer::makeTensor(-1.5, 2.5), 1);
  std::set<double> seen;
  for (double v : valuesOf(ints)) seen.insert(v);
  EXPECT_EQ(seen, (std::set<double>{-1, 0, 1, 2}));
  // Bounds beyond the dtype's range are clamped, as make_tensor does.
  const Tensor halves = filled(DataType::Half, {1000}, TensorInitializer::makeTensor(-1e9, 1e9), 1);
  for (double v : valuesOf(halves)) ASSERT_TRUE(std::isfinite(v));
  const Tensor constant = filled(DataType::Float, {10}, TensorInitializer::makeTensor(2.0, 2.0), 1);
  for (double v : valuesOf(constant)) EXPECT_EQ(v, 2.0);
}

TEST(RandomFillTest, ArangeAndConstants) {
  Tensor t = Tensor::empty(DataType::Int, {2, 3});
  fillArange(t, 10, -2);
  EXPECT_EQ(valuesOf(t), (std::vector<double>{10, 8, 6, 4, 2, 0}));
  Tensor h = Tensor::empty(DataType::Half, {4});
  fillArange(h, 0.5, 0.25);
  EXPECT_EQ(valuesOf(h), (std::vector<double>{0.5, 0.75, 1.0, 1.25}));
  // Arange through a permuted view follows the view's logical order.
  Tensor base = Tensor::empty(DataType::Float, {2, 3});
  Tensor transposed = base.permute({1, 0});
  fillArange(transposed);
  EXPECT_EQ(valuesOf(base), (std::vector<double>{0, 2, 4, 1, 3, 5}));

  Tensor c = Tensor::empty(DataType::BFloat16, {3});
  fillConstant(c, 1.0 + 0x1.0p-8);
  EXPECT_EQ(valuesOf(c), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(valuesOf(filled(DataType::Int32, {2}, TensorInitializer::ones(), 0)),
            (std::vector<double>{1, 1}));
  EXPECT_EQ(valuesOf(filled(DataType::Float, {2}, TensorInitializer::zeros(), 0)),
            (std::vector<double>{0, 0}));
  EXPECT_EQ(valuesOf(filled(DataType::Double, {2}, TensorInitializer::full(-2.5), 0)),
            (std::vector<double>{-2.5, -2.5}));
}

TEST(RandomFillTest, BadParametersAreUserErrors) {
  Tensor ints = Tensor::empty(DataType::Int32, {4});
  EXPECT_THROW(fillNormal(ints, 1), UserError);
  EXPECT_THROW(TensorInitializer::rand().apply(ints, 1), UserError);
  Tensor floats = Tensor::empty(DataType::Float, {4});
  EXPECT_THROW(fillUniform(floats, 1, 1.0, 0.0), UserError);
  EXPECT_THROW(fillNormal(floats, 1, 0.0, -1.0), UserError);
  EXPECT_THROW(fillUniform(floats, 1, -1e300, 1e300), UserError);  // use make_tensor to clamp
  EXPECT_THROW(TensorInitializer::make(Kind::Full).apply(floats, 1), UserError);
  EXPECT_THROW(TensorInitializer::make(Kind::Randint).apply(floats, 1), UserError);
  EXPECT_THROW(TensorInitializer::randint(0.5, 3.0).apply(floats, 1), UserError);
  EXPECT_THROW(TensorInitializer::makeTensor(3.0, 1.0).apply(floats, 1), UserError);
  int fake = 0;
  Tensor cuda = Tensor::borrow(&fake, DataType::Float, {1}, {1}, 0, DeviceKind::Cuda);
  EXPECT_THROW(fillNormal(cuda, 1), UserError);
}

TEST(RandomFillTest, InitializerToString) {
  EXPECT_EQ(TensorInitializer::randn().toString(), "randn");
  EXPECT_EQ(TensorInitializer::rand().toString(), "rand");
  EXPECT_EQ(TensorInitializer::makeTensor(-1.0, 1.0).toString(), "make_tensor(low=-1, high=1)");
  EXPECT_EQ(TensorInitializer::randint(std::nullopt, 10.0).toString(), "randint(high=10)");
  EXPECT_EQ(TensorInitializer::full(0.1).toString(), "full(value=0.1)");
  EXPECT_EQ(TensorInitializer::arange(1, 0.5).toString(), "arange(start=1, step=0.5)");
  EXPECT_EQ(TensorInitializer::arange().toString(), "arange");
  EXPECT_EQ(TensorInitializer::zeros().toString(), "zeros");
  EXPECT_EQ(TensorInitializer::makeTensor().toString(), "make_tensor");
}

}  // namespace
}  // namespace fuserlab::runtime
