// The random ops on the CPU reference, read from scripts: uniform and normal
// values have the distribution's mean and variance over 1e5 samples and stay
// in range for every dtype; the same seed and offset give the same tensor,
// another offset or seed another; an element's value is Philox's at its
// row-major index; ops without a seed are reproducible yet distinct.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/random_numbers.h"
#include "core/reference/reference_run.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

constexpr int64_t kSamples = 100000;

struct Moments {
  double mean = 0.0;
  double variance = 0.0;
  double min = 0.0;
  double max = 0.0;
};

Moments momentsOf(const std::vector<double>& values) {
  Moments m;
  m.min = *std::min_element(values.begin(), values.end());
  m.max = *std::max_element(values.begin(), values.end());
  for (double v : values) m.mean += v;
  m.mean /= static_cast<double>(values.size());
  for (double v : values) m.variance += (v - m.mean) * (v - m.mean);
  m.variance /= static_cast<double>(values.size() - 1);
  return m;
}

class ReferenceRandomTest : public ::testing::Test {
 protected:
  static std::string frame(std::string_view body) {
    std::ostringstream out;
    out << "from nvfuser import FusionDefinition, DataType\n\n"
        << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
    out << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
    return out.str();
  }

  //! Reads `body` and runs it on the reference; every output as doubles.
  static std::vector<std::vector<double>> run(std::string_view body, const Arguments& args = {}) {
    const frontend::Script script = frontend::readScript(frame(body), "random.py");
    std::vector<std::vector<double>> out;
    for (const Tensor& t : runReference(script.fusion(), args)) {
      const Tensor contiguous = t.to(DataType::Double).contiguous();
      const double* data = contiguous.dataAs<double>();
      out.emplace_back(data, data + contiguous.numel());
    }
    return out;
  }

  static std::vector<double> runOne(std::string_view body, const Arguments& args = {}) {
    auto outputs = run(body, args);
    EXPECT_EQ(outputs.size(), 1u);
    return outputs.empty() ? std::vector<double>{} : outputs[0];
  }

  //! uniform(low, high) or normal(mean, std) of kSamples elements.
  static std::string distribution(std::string_view op, double a, double b, std::string_view dtype,
                                  int64_t seed = 42, int64_t offset = 3) {
    return "S0 = fd.define_scalar(" + std::to_string(a) + ", dtype=DataType.Double)\n" +
           "S1 = fd.define_scalar(" + std::to_string(b) + ", dtype=DataType.Double)\n" +
           "T2 = fd.ops." + std::string(op) + "(S0, S1, shape=[" + std::to_string(kSamples) +
           "], rng_seed=" + std::to_string(seed) + ", rng_offset=" + std::to_string(offset) +
           ", dtype=DataType." + std::string(dtype) + ")\n" + "fd.add_output(T2)\n";
  }
};

TEST_F(ReferenceRandomTest, UniformHasTheMeanVarianceAndRangeOfItsBounds) {
  for (const char* dtype : {"Float", "Double", "Half", "BFloat16"}) {
    SCOPED_TRACE(dtype);
    const double low = -2.0;
    const double high = 3.0;
    const std::vector<double> values = runOne(distribution("uniform", low, high, dtype));
    ASSERT_EQ(static_cast<int64_t>(values.size()), kSamples);
    const Moments m = momentsOf(values);
    const double variance = (high - low) * (high - low) / 12.0;
    // Five standard errors of the mean; 3% on the variance.
    EXPECT_NEAR(m.mean, (low + high) / 2, 5.0 * std::sqrt(variance / kSamples));
    EXPECT_NEAR(m.variance, variance, 0.03 * variance);
    EXPECT_GE(m.min, low);
    EXPECT_LT(m.max, high);
    EXPECT_LT(m.min, low + 0.01);  // the whole range is reached
    EXPECT_GT(m.max, high - 0.05);
  }
}

TEST_F(ReferenceRandomTest, NormalHasItsMeanAndVariance) {
  for (const char* dtype : {"Float", "Double", "Half", "BFloat16"}) {
    SCOPED_TRACE(dtype);
    const double mean = 1.5;
    const double stddev = 2.0;
    const std::vector<double> values = runOne(distribution("normal", mean, stddev, dtype));
    const Moments m = momentsOf(values);
    EXPECT_NEAR(m.mean, mean, 5.0 * stddev / std::sqrt(double(kSamples)));
    EXPECT_NEAR(m.variance, stddev * stddev, 0.03 * stddev * stddev);
    // 1e5 normal samples: the extremes lie beyond 3 sigma, within 6.
    EXPECT_LT(m.min, mean - 3 * stddev);
    EXPECT_GT(m.max, mean + 3 * stddev);
    EXPECT_GT(m.min, mean - 6 * stddev);
    EXPECT_LT(m.max, mean + 6 * stddev);
  }
}

TEST_F(ReferenceRandomTest, RandLikeAndRandnLikeHaveTheInputsShapeAndDtype) {
  for (const char* dtype : {"Float", "Double", "Half", "BFloat16"}) {
    SCOPED_TRACE(dtype);
    const std::string body =
        "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType." +
        std::string(dtype) +
        ")\n"
        "T1 = fd.ops.rand_like(T0)\n"
        "T2 = fd.ops.randn_like(T0)\n"
        "fd.add_output(T1)\n"
        "fd.add_output(T2)\n";
    const frontend::Script script = frontend::readScript(frame(body), "random.py");
    ASSERT_EQ(script.fusion().outputs().size(), 2u);
    for (const ir::FusionOutput& out : script.fusion().outputs()) {
      EXPECT_EQ(ir::toString(out.val->dtype()), std::string(dtype));
    }
    const DataType dt = script.fusion().outputs()[0].val->dtype();
    Tensor x = Tensor::empty(dt, {200, 500});
    x.zero();
    const std::vector<Tensor> outputs = runReference(script.fusion(), {x});
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_EQ(outputs[0].sizes(), (std::vector<int64_t>{200, 500}));
    auto values = [](const Tensor& t) {
      const Tensor c = t.to(DataType::Double).contiguous();
      return std::vector<double>(c.dataAs<double>(), c.dataAs<double>() + c.numel());
    };
    const Moments uniform = momentsOf(values(outputs[0]));
    EXPECT_GE(uniform.min, 0.0);
    EXPECT_LT(uniform.max, 1.0);
    EXPECT_NEAR(uniform.mean, 0.5, 5.0 * std::sqrt(1.0 / 12 / kSamples));
    EXPECT_NEAR(uniform.variance, 1.0 / 12, 0.03 / 12);
    const Moments normal = momentsOf(values(outputs[1]));
    EXPECT_NEAR(normal.mean, 0.0, 5.0 / std::sqrt(double(kSamples)));
    EXPECT_NEAR(normal.variance, 1.0, 0.03);
  }
}

TEST_F(ReferenceRandomTest, SameSeedAndOffsetGiveTheSameValuesOthersDoNot) {
  const std::string body =
      "S0 = fd.define_scalar(DataType.Int)\n"
      "S1 = fd.define_scalar(DataType.Int)\n"
      "T2 = fd.ops.uniform(0.0, 1.0, shape=[1000], rng_seed=S0, rng_offset=S1, "
      "dtype=DataType.Float)\n"
      "T3 = fd.ops.normal(0.0, 1.0, shape=[1000], rng_seed=S0, rng_offset=S1, "
      "dtype=DataType.Float)\n"
      "fd.add_output(T2)\n"
      "fd.add_output(T3)\n";
  auto draw = [&](int64_t seed, int64_t offset) {
    return run(body, {ir::ScalarValue(seed), ir::ScalarValue(offset)});
  };
  const auto first = draw(7, 100);
  EXPECT_EQ(draw(7, 100), first);
  auto sharedValues = [](const std::vector<double>& a, const std::vector<double>& b) {
    int same = 0;
    for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
    return same;
  };
  for (const auto& other : {draw(7, 101), draw(8, 100)}) {
    for (size_t k = 0; k < 2; ++k) {
      // 2^-24 chance per element for float values to coincide.
      EXPECT_LT(sharedValues(first[k], other[k]), 3) << "output " << k;
    }
  }
}

TEST_F(ReferenceRandomTest, ElementValueIsPhiloxAtItsRowMajorIndex) {
  // [3, 1, 5, 7]: the broadcast axis adds nothing to the index.
  const std::vector<double> values = runOne(
      "T0 = fd.ops.uniform(0.0, 1.0, shape=[3, 1, 5, 7], rng_seed=11, rng_offset=2, "
      "dtype=DataType.Float)\n"
      "fd.add_output(T0)\n");
  ASSERT_EQ(values.size(), 105u);
  for (uint64_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i], ir::rng::uniformStandardF(11, 2, i, ir::rng::RoundIdentity()))
        << "element " << i;
  }
  // nvFuser: element i takes word i % 4 of Philox(seed, i / 4, offset).
  const ir::rng::PhiloxBlock block = ir::rng::philox(11, 1, 2);
  EXPECT_EQ(values[6], ir::rng::uniformFloat(block.word[2]));
}

TEST_F(ReferenceRandomTest, OpsWithoutASeedAreReproducibleAndDistinct) {
  const std::string body =
      "T0 = fd.ops.uniform(0.0, 1.0, shape=[64], dtype=DataType.Float)\n"
      "T1 = fd.ops.uniform(0.0, 1.0, shape=[64], dtype=DataType.Float)\n"
      "fd.add_output(T0)\n"
      "fd.add_output(T1)\n";
  const auto first = run(body);
  EXPECT_EQ(run(body), first);
  EXPECT_NE(first[0], first[1]);
  // Seed 0 and the op's position among random ops as the offset.
  for (uint64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(first[1][i], ir::rng::uniformStandardF(0, 1, i, ir::rng::RoundIdentity()));
  }
}

TEST_F(ReferenceRandomTest, SymbolicShapeFromAnInput) {
  const std::string body =
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)\n"
      "S1 = fd.define_scalar(0.5, dtype=DataType.Double)\n"
      "T2 = fd.ops.normal(S1, 0.25, T0.shape(), rng_seed=1, rng_offset=0, "
      "dtype=DataType.Double)\n"
      "T3 = fd.ops.add(T0, T2)\n"
      "fd.add_output(T3)\n";
  Tensor x = Tensor::empty(DataType::Float, {300, 400});
  x.zero();
  const std::vector<double> values = runOne(body, {x});
  ASSERT_EQ(values.size(), 120000u);
  const Moments m = momentsOf(values);
  EXPECT_NEAR(m.mean, 0.5, 0.005);
  EXPECT_NEAR(m.variance, 0.0625, 0.03 * 0.0625);
}

}  // namespace
}  // namespace fuserlab::runtime
