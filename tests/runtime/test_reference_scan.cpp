// The scans (nvFuser's fd.ops.cumsum, cumprod, cummin, cummax; torch's
// cumulative ops) on the CPU reference: every axis and a negative dim, the
// dtype nvFuser gives (the input's: an Int32 cumsum wraps in 32 bits), a Half
// line accumulated in Float as torch does, NaN kept by cummin/cummax, a
// size-1 axis, a 0-dim input, init, and the reader. The GPU's scan kernel
// follows this order and rounding (tests/codegen/test_scan_kernel.cpp,
// tests/gpu/test_gpu_scan.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ops/scan.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

using ir::BinaryOpType;

// Non-zero values in [-2, -0.25] and [0.25, 2], from a fixed seed.
std::vector<double> nonZero(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> magnitude(0.25f, 2.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) {
    const float m = magnitude(gen);
    out.push_back(negative(gen) ? -m : m);
  }
  return out;
}

// The scan written out for a row-major [outer, length, inner] tensor, in
// float as the reference computes a Float line.
std::vector<double> expectedScan(const std::vector<double>& x, int64_t outer, int64_t length,
                                 int64_t inner, BinaryOpType op) {
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      float acc = 0;
      for (int64_t j = 0; j < length; ++j) {
        const auto at = static_cast<size_t>((o * length + j) * inner + i);
        const auto v = static_cast<float>(x[at]);
        if (j == 0) {
          acc = v;
        } else if (op == BinaryOpType::Add) {
          acc = acc + v;
        } else if (op == BinaryOpType::Mul) {
          acc = acc * v;
        } else if (op == BinaryOpType::Maximum) {
          acc = std::max(acc, v);
        } else {
          acc = std::min(acc, v);
        }
        out[at] = acc;
      }
    }
  }
  return out;
}

TEST_F(ReferenceExecutorTest, ScansRunAlongEveryAxisOfAFloatTensor) {
  // [3, 4, 5]: dims 0, 1 and -1 (the innermost, written negative).
  const std::vector<int64_t> dims = {0, 1, -1};
  const std::vector<BinaryOpType> ops = {BinaryOpType::Add, BinaryOpType::Mul,
                                         BinaryOpType::Maximum, BinaryOpType::Minimum};
  TensorView* x = input({3, -1, 5});
  for (BinaryOpType op : ops) {
    for (int64_t dim : dims) fusion_.addOutput(ops::scan(x, dim, op));
  }
  const std::vector<double> data = nonZero(60, 7);
  const std::vector<Tensor> out = run({make(DataType::Float, {3, 4, 5}, data)});
  ASSERT_EQ(out.size(), ops.size() * dims.size());
  size_t next = 0;
  for (BinaryOpType op : ops) {
    EXPECT_EQ(expectedScan(data, 1, 3, 20, op), values(out[next++])) << ir::toString(op) << " 0";
    EXPECT_EQ(expectedScan(data, 3, 4, 5, op), values(out[next++])) << ir::toString(op) << " 1";
    EXPECT_EQ(expectedScan(data, 12, 5, 1, op), values(out[next++])) << ir::toString(op) << " -1";
  }
  EXPECT_EQ(out[0].dtype(), DataType::Float);
}

TEST_F(ReferenceExecutorTest, ScansOfSmallLinesGiveTheirPrefixes) {
  TensorView* x = input({2, 4});
  fusion_.addOutput(ops::scan(x, 1, BinaryOpType::Add));
  fusion_.addOutput(ops::scan(x, -2, BinaryOpType::Mul));
  fusion_.addOutput(ops::scan(x, 1, BinaryOpType::Maximum));
  fusion_.addOutput(ops::scan(x, 1, BinaryOpType::Minimum));
  const auto out = run({make(DataType::Float, {2, 4}, {3, -1, 4, 1.5, -5, 9, -2, 6})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{3, 2, 6, 7.5, -5, 4, 2, 8}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{3, -1, 4, 1.5, -15, -9, -8, 9}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{3, 3, 4, 4, -5, 9, 9, 9}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{3, -1, -1, -1, -5, -5, -5, -5}));
}

TEST_F(ReferenceExecutorTest, IntegerCumsumKeepsItsDtypeAndWraps) {
  // nvFuser keeps Int32 (torch would give Int64); the sum wraps in 32 bits.
  TensorView* x = input({4}, DataType::Int32);
  TensorView* y = ops::scan(x, 0, BinaryOpType::Add);
  EXPECT_EQ(y->dtype(), DataType::Int32);
  fusion_.addOutput(y);
  fusion_.addOutput(ops::scan(x, 0, BinaryOpType::Mul));
  const auto out = run({make(DataType::Int32, {4}, {2147483647, 1, 5, -3})});
  EXPECT_EQ(values(out[0]),
            (std::vector<double>{2147483647, -2147483648.0, -2147483643, -2147483646}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{2147483647, 2147483647, 2147483643, -2147483633}));
}

TEST_F(ReferenceExecutorTest, IntCumsumAndCummaxOfRandomIntegers) {
  std::mt19937 gen(11);
  std::uniform_int_distribution<int> pick(-50, 49);
  std::vector<double> data;
  for (int i = 0; i < 24; ++i) {
    const int v = pick(gen);
    data.push_back(v >= 0 ? v + 1 : v);  // never 0
  }
  TensorView* x = input({4, 6}, DataType::Int);
  fusion_.addOutput(ops::scan(x, 0, BinaryOpType::Add));
  fusion_.addOutput(ops::scan(x, 1, BinaryOpType::Maximum));
  const auto out = run({make(DataType::Int, {4, 6}, data)});
  std::vector<double> sums(data.size());
  std::vector<double> maxima(data.size());
  for (size_t r = 0; r < 4; ++r) {
    for (size_t col = 0; col < 6; ++col) {
      const size_t at = r * 6 + col;
      sums[at] = data[at] + (r == 0 ? 0 : sums[at - 6]);
      maxima[at] = col == 0 ? data[at] : std::max(data[at], maxima[at - 1]);
    }
  }
  EXPECT_EQ(values(out[0]), sums);
  EXPECT_EQ(values(out[1]), maxima);
  EXPECT_EQ(out[0].dtype(), DataType::Int);
}

TEST_F(ReferenceExecutorTest, HalfCumsumAccumulatesInFloat) {
  // 3,000 ones: a Half accumulator would stop at 2048 (2048 + 1 rounds back
  // to 2048); torch accumulates in Float and rounds each prefix once.
  TensorView* x = input({3000}, DataType::Half);
  fusion_.addOutput(ops::scan(x, 0, BinaryOpType::Add));
  const auto out = runValues({make(DataType::Half, {3000}, std::vector<double>(3000, 1.0))});
  EXPECT_EQ(out[2046], 2047);
  EXPECT_EQ(out[2048], 2048);  // 2049 rounds to even
  EXPECT_EQ(out[2049], 2050);
  EXPECT_EQ(out[2999], 3000);
}

TEST_F(ReferenceExecutorTest, CummaxAndCumminKeepANanOnceTheyMeetIt) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  TensorView* x = input({5});
  fusion_.addOutput(ops::scan(x, 0, BinaryOpType::Maximum));
  fusion_.addOutput(ops::scan(x, 0, BinaryOpType::Minimum));
  fusion_.addOutput(ops::scan(x, 0, BinaryOpType::Add));
  const auto out = run({make(DataType::Float, {5}, {1.5, -2, nan, 7, -9})});
  const std::vector<double> max = values(out[0]);
  const std::vector<double> min = values(out[1]);
  EXPECT_EQ(max[0], 1.5);
  EXPECT_EQ(max[1], 1.5);
  EXPECT_EQ(min[1], -2);
  for (size_t i = 2; i < 5; ++i) {
    EXPECT_TRUE(std::isnan(max[i])) << i;
    EXPECT_TRUE(std::isnan(min[i])) << i;
    EXPECT_TRUE(std::isnan(values(out[2])[i])) << i;
  }
}

TEST_F(ReferenceExecutorTest, AScanAlongASizeOneAxisOrOfA0DimTensorIsItsInput) {
  TensorView* x = input({4, 1});
  TensorView* scalar = input({});
  fusion_.addOutput(ops::scan(x, 1, BinaryOpType::Add));
  fusion_.addOutput(ops::scan(x, -1, BinaryOpType::Maximum));
  fusion_.addOutput(ops::scan(scalar, 0, BinaryOpType::Mul));
  fusion_.addOutput(ops::scan(scalar, -1, BinaryOpType::Minimum));
  const auto out =
      run({make(DataType::Float, {4, 1}, {0.5, -3, 8, 1.25}), make(DataType::Float, {}, {-6.5})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0.5, -3, 8, 1.25}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{0.5, -3, 8, 1.25}));
  EXPECT_EQ(out[2].dim(), 0);
  EXPECT_EQ(values(out[2]), (std::vector<double>{-6.5}));
  EXPECT_EQ(values(out[3]), (std::vector<double>{-6.5}));
}

TEST_F(ReferenceExecutorTest, AScanStartsFromItsInit) {
  TensorView* x = input({2, 3});
  fusion_.addOutput(ops::scan(x, 1, BinaryOpType::Add, d(10)));
  fusion_.addOutput(ops::scan(x, 0, BinaryOpType::Maximum, d(4)));
  const auto out = run({make(DataType::Float, {2, 3}, {1, 2, 3, 5, -1, 2})});
  EXPECT_EQ(values(out[0]), (std::vector<double>{11, 13, 16, 15, 14, 16}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{4, 4, 4, 5, 4, 4}));
}

TEST_F(ReferenceExecutorTest, ScansRefuseAnAxisOutOfRangeAndATensorInit) {
  expectUserError([&] { ops::scan(input({2, 3}), 2, BinaryOpType::Add); }, {"cumsum"});
  expectUserError([&] { ops::scan(input({}), 1, BinaryOpType::Mul); },
                  {"cumprod", "0-dim", "expected 0 or -1"});
  expectUserError(
      [&] {
        ops::scan(input({2, 3}), 0, BinaryOpType::Maximum, input({2, 3}));
      },
      {"cummax", "init", "expected a scalar"});
}

// As nvFuser's test_cumsum ... test_cummax write them (test_fn(dim) with
// dim 0 and 1), and with the keywords nvfuser_direct binds.
TEST(ReaderScanTest, TheScansReadByTheirNvfuserNames) {
  for (const std::string call :
       {"fd.ops.cumsum(t0, 0)", "fd.ops.cumprod(t0, 1)", "fd.ops.cummin(t0, dim=-1)",
        "fd.ops.cummax(arg=t0, dim=0)", "fd.ops.cumsum(t0, 1, init=None)",
        "fd.ops.cumsum(t0, 1, init=2.0)"}) {
    SCOPED_TRACE(call);
    const std::string source =
        "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n\n"
        "inputs = [torch.randn(8, 16, device='cuda')]\n\n"
        "def fusion_func(fd: FusionDefinition):\n"
        "    t0 = fd.from_pytorch(inputs[0])\n"
        "    t1 = " +
        call +
        "\n"
        "    fd.add_output(t1)\n\n"
        "with FusionDefinition() as fd:\n    fusion_func(fd)\n";
    const frontend::Script script = frontend::readScript(source, "scan.py");
    ASSERT_EQ(script.fusion().outputs().size(), 1u);
    const ir::Val* out = script.fusion().outputs().front().val;
    EXPECT_EQ(out->dtype(), ir::DataType::Float);
    ASSERT_NE(out->definition(), nullptr);
    EXPECT_EQ(out->definition()->type(), ir::ExprType::Scan);
    const size_t name = std::string("fd.ops.").size();
    EXPECT_EQ(out->definition()->opName(), call.substr(name, call.find('(') - name));
  }
}

}  // namespace
}  // namespace fuserlab::runtime::test
