// The reference's pointwise ops split their blocks over threads
// (FUSERLAB_REFERENCE_THREADS, reference_parallel.h): the same bits as one
// thread, on an op large enough to split (2^20 elements, strided and
// broadcast operands, a dtype conversion), and an integer division by zero
// reported at the first zero, as one thread reports it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/ops/normalization.h"
#include "core/reference/reference_parallel.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

using ir::BinaryOpType;
using ir::UnaryOpType;

class ReferenceThreads {
 public:
  explicit ReferenceThreads(int threads) {
    ::setenv("FUSERLAB_REFERENCE_THREADS", std::to_string(threads).c_str(), 1);
  }
  ~ReferenceThreads() { ::unsetenv("FUSERLAB_REFERENCE_THREADS"); }
  ReferenceThreads(const ReferenceThreads&) = delete;
  ReferenceThreads& operator=(const ReferenceThreads&) = delete;
};

std::vector<double> noise(int64_t n, double scale) {
  std::vector<double> out;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    out.push_back(scale * (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.37));
  }
  return out;
}

TEST_F(ReferenceExecutorTest, PointwiseOpsSplitOverThreadsGiveTheSameBits) {
  constexpr int64_t kRows = 1024;
  constexpr int64_t kCols = 1024;
  TensorView* x = input({kRows, kCols}, DataType::BFloat16);
  TensorView* w = input({kCols}, DataType::Float);
  Val* xf = ops::cast(x, DataType::Float);
  Val* scaled =
      ops::binaryOp(BinaryOpType::Mul, xf, ops::broadcastInDim(w, sizes({kRows, kCols}), {1}));
  Val* y = ops::unaryOp(UnaryOpType::Tanh, ops::binaryOp(BinaryOpType::Add, scaled, d(0.25)));
  fusion_.addOutput(ops::cast(y, DataType::Half));
  const Tensor xs = make(DataType::BFloat16, {kRows, kCols}, noise(kRows * kCols, 6.0));
  const Tensor ws = make(DataType::Float, {kCols}, noise(kCols, 2.0));
  std::vector<Tensor> one;
  {
    ReferenceThreads threads(1);
    one = run({xs, ws});
  }
  std::vector<Tensor> four;
  {
    ReferenceThreads threads(4);
    EXPECT_EQ(runtime::reference::referenceThreads(), 4);
    four = run({xs, ws});
  }
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(four.size(), 1u);
  ASSERT_EQ(one[0].numel(), kRows * kCols);
  EXPECT_EQ(std::memcmp(one[0].data(), four[0].data(), kRows * kCols * 2), 0);
}

// Reductions split their rows (each row still summed in its own order):
// sums, maxima, log-sum-exp and var_mean of rows and of columns.
TEST_F(ReferenceExecutorTest, ReductionsSplitOverRowsGiveTheSameBits) {
  constexpr int64_t kRows = 1024;
  constexpr int64_t kCols = 512;
  TensorView* x = input({kRows, kCols}, DataType::Float);
  fusion_.addOutput(ops::sum(x, {1}));
  fusion_.addOutput(ops::sum(x, {0}));
  fusion_.addOutput(ops::reduction(ir::ReductionOpType::Max, x, {1}));
  fusion_.addOutput(ops::reduction(ir::ReductionOpType::LogSumExp, x, {1}));
  const ops::WelfordResult moments = ops::welford(x, {1});
  fusion_.addOutput(moments.avg);
  fusion_.addOutput(moments.varSum);
  const Tensor xs = make(DataType::Float, {kRows, kCols}, noise(kRows * kCols, 4.0));
  std::vector<Tensor> one;
  {
    ReferenceThreads threads(1);
    one = run({xs});
  }
  std::vector<Tensor> four;
  {
    ReferenceThreads threads(4);
    four = run({xs});
  }
  ASSERT_EQ(one.size(), four.size());
  for (size_t i = 0; i < one.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    ASSERT_EQ(one[i].numel(), four[i].numel());
    EXPECT_EQ(std::memcmp(one[i].data(), four[i].data(),
                          static_cast<size_t>(one[i].numel()) * ir::sizeInBytes(one[i].dtype())),
              0);
  }
}

TEST_F(ReferenceExecutorTest, ADivisionByZeroFoundOnThreadsNamesTheFirstZero) {
  constexpr int64_t kCount = 1 << 20;
  TensorView* a = input({kCount}, DataType::Int);
  TensorView* b = input({kCount}, DataType::Int);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Div, a, b));
  std::vector<double> divisors(kCount, 3.0);
  divisors[700000] = 0.0;  // in the third of four ranges
  divisors[300001] = 0.0;  // in the second: the one a single thread meets first
  const Tensor as = make(DataType::Int, {kCount}, std::vector<double>(kCount, 7.0));
  const Tensor bs = make(DataType::Int, {kCount}, divisors);
  ReferenceThreads threads(4);
  expectUserError([&] { run({as, bs}); }, {"integer division by zero at output element 300001"});
}

TEST(ReferenceParallelTest, RangesCoverEachPieceOnceAndRethrowTheLowestRangesError) {
  ReferenceThreads threads(3);
  std::vector<int> seen(1000, 0);
  runtime::reference::parallelRanges(1000, 10, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) ++seen[static_cast<size_t>(i)];
  });
  for (int count : seen) EXPECT_EQ(count, 1);
  try {
    runtime::reference::parallelRanges(1000, 10, [&](int64_t first, int64_t) {
      throw std::runtime_error("range from " + std::to_string(first));
    });
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "range from 0");
  }
}

}  // namespace
}  // namespace fuserlab::runtime::test
