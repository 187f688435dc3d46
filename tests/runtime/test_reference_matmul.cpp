// The reference executor's matmul, linear and sdpfa_fwd against naive loops
// on random inputs, torch.matmul's 1-D and batched-broadcast shapes, and a
// timing print for a 1024^3 float matmul.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/ops/composite.h"
#include "core/tensor/float16.h"
#include "core/tensor/random_fill.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

Tensor randomTensor(DataType dtype, const std::vector<int64_t>& shape, uint64_t seed) {
  Tensor t = Tensor::empty(dtype, shape);
  fillUniform(t, seed, -2.0, 2.0);
  return t;
}

//! a [M, K] @ b [K, N] in double, element (i, j).
double naiveDot(const Tensor& a, const Tensor& b, int64_t i, int64_t j) {
  double sum = 0;
  for (int64_t k = 0; k < a.sizes()[1]; ++k) sum += a.item({i, k}) * b.item({k, j});
  return sum;
}

TEST_F(ReferenceExecutorTest, MatmulMatchesNaiveTripleLoop) {
  TensorView* a = input({37, 53});
  TensorView* b = input({53, 29});
  fusion_.addOutput(ops::matmul(a, b));
  const Tensor as = randomTensor(DataType::Float, {37, 53}, 1);
  const Tensor bs = randomTensor(DataType::Float, {53, 29}, 2);
  const Tensor out = run({as, bs}).at(0);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{37, 29}));
  double largest = 0;
  for (int64_t i = 0; i < 37; ++i) {
    for (int64_t j = 0; j < 29; ++j) {
      const double expected = naiveDot(as, bs, i, j);
      largest = std::max(largest, std::abs(expected));
      EXPECT_NEAR(out.item({i, j}), expected, 1e-4);
    }
  }
  EXPECT_GT(largest, 1.0);  // the inputs were not degenerate
}

TEST_F(ReferenceExecutorTest, Bf16MatmulAccumulatesInFloatAndRoundsOnce) {
  TensorView* a = input({4, 300}, DataType::BFloat16);
  TensorView* b = input({300, 3}, DataType::BFloat16);
  fusion_.addOutput(ops::matmul(a, b));
  const Tensor as = randomTensor(DataType::BFloat16, {4, 300}, 3);
  const Tensor bs = randomTensor(DataType::BFloat16, {300, 3}, 4);
  const Tensor out = run({as, bs}).at(0);
  ASSERT_EQ(out.dtype(), DataType::BFloat16);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      float sum = 0;  // the same order: k ascending, in float
      for (int64_t k = 0; k < 300; ++k) {
        sum += static_cast<float>(as.item({i, k})) * static_cast<float>(bs.item({k, j}));
      }
      EXPECT_EQ(out.item({i, j}), BFloat16::fromFloat(sum).toFloat());
    }
  }
}

TEST_F(ReferenceExecutorTest, MatmulOneDimensionalOperands) {
  TensorView* v = input({3});
  TensorView* w = input({3});
  TensorView* m = input({3, 2});
  TensorView* n = input({2, 3});
  fusion_.addOutput(ops::matmul(v, w));  // dot: 0-dim
  fusion_.addOutput(ops::matmul(v, m));  // [2]
  fusion_.addOutput(ops::matmul(n, w));  // [2]
  const std::vector<Tensor> out =
      run({make(DataType::Float, {3}, {1, 2, 3}), make(DataType::Float, {3}, {4, 5, 6}),
           make(DataType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}),
           make(DataType::Float, {2, 3}, {1, 0, 1, 0, 1, 0})});
  EXPECT_EQ(out[0].dim(), 0);
  EXPECT_EQ(values(out[0]), (std::vector<double>{32}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{22, 28}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{10, 5}));
}

TEST_F(ReferenceExecutorTest, BatchedMatmulBroadcastsBatchAxes) {
  TensorView* a = input({2, 1, 4, 3});
  TensorView* b = input({5, 3, 2});
  TensorView* y = ops::matmul(a, b);
  fusion_.addOutput(y);
  const Tensor as = randomTensor(DataType::Float, {2, 1, 4, 3}, 5);
  const Tensor bs = randomTensor(DataType::Float, {5, 3, 2}, 6);
  const Tensor out = run({as, bs}).at(0);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{2, 5, 4, 2}));
  for (int64_t p = 0; p < 2; ++p) {
    for (int64_t q = 0; q < 5; ++q) {
      for (int64_t i = 0; i < 4; ++i) {
        for (int64_t j = 0; j < 2; ++j) {
          double sum = 0;
          for (int64_t k = 0; k < 3; ++k) sum += as.item({p, 0, i, k}) * bs.item({q, k, j});
          EXPECT_NEAR(out.item({p, q, i, j}), sum, 1e-5);
        }
      }
    }
  }
}

TEST_F(ReferenceExecutorTest, LinearWithBiasMatchesNaiveLoop) {
  TensorView* x = input({2, 3, 16});
  TensorView* weight = input({5, 16});
  TensorView* bias = input({5});
  fusion_.addOutput(ops::linear(x, weight, bias));
  const Tensor xs = randomTensor(DataType::Float, {2, 3, 16}, 7);
  const Tensor ws = randomTensor(DataType::Float, {5, 16}, 8);
  const Tensor bs = randomTensor(DataType::Float, {5}, 9);
  const Tensor out = run({xs, ws, bs}).at(0);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{2, 3, 5}));
  for (int64_t p = 0; p < 2; ++p) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t n = 0; n < 5; ++n) {
        double sum = bs.item({n});
        for (int64_t k = 0; k < 16; ++k) sum += xs.item({p, i, k}) * ws.item({n, k});
        EXPECT_NEAR(out.item({p, i, n}), sum, 1e-5);
      }
    }
  }
}

TEST_F(ReferenceExecutorTest, LinearWithVectorWeight) {
  TensorView* x = input({2, 3});
  TensorView* weight = input({3});
  fusion_.addOutput(ops::linear(x, weight));
  EXPECT_EQ(runValues({make(DataType::Float, {2, 3}, {1, 2, 3, 4, 5, 6}),
                       make(DataType::Float, {3}, {1, 0, -1})}),
            (std::vector<double>{-2, -2}));
}

//! softmax(q k^T * scale (+ causal mask)) v and logsumexp, in double.
void naiveAttention(const Tensor& q, const Tensor& k, const Tensor& v, bool causal, int64_t b,
                    int64_t h, int64_t i, std::vector<double>& out, double& logSumExp) {
  const int64_t keys = k.sizes()[2];
  const int64_t depth = q.sizes()[3];
  const double scale = 1.0 / std::sqrt(static_cast<double>(depth));
  std::vector<double> scores;
  double best = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < keys; ++j) {
    if (causal && j > i) break;
    double dot = 0;
    for (int64_t e = 0; e < depth; ++e) dot += q.item({b, h, i, e}) * k.item({b, h, j, e});
    scores.push_back(dot * scale);
    best = std::max(best, scores.back());
  }
  double total = 0;
  for (double& s : scores) total += (s = std::exp(s - best));
  out.assign(v.sizes()[3], 0.0);
  for (size_t j = 0; j < scores.size(); ++j) {
    for (int64_t e = 0; e < v.sizes()[3]; ++e) {
      out[e] += scores[j] / total * v.item({b, h, static_cast<int64_t>(j), e});
    }
  }
  logSumExp = best + std::log(total);
}

//! Compares sdpfa_fwd's output, logsumexp and philox seed with naiveAttention.
void checkAttention(const std::vector<Tensor>& out, const Tensor& q, const Tensor& k,
                    const Tensor& v, bool causal) {
  ASSERT_EQ(out.size(), 3u);
  ASSERT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 2, 5, 4}));
  EXPECT_EQ(out[2].item({}), 0);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t i = 0; i < 5; ++i) {
        std::vector<double> expected;
        double lse = 0;
        naiveAttention(q, k, v, causal, b, h, i, expected, lse);
        EXPECT_NEAR(out[1].item({b, h, i}), lse, 1e-4);
        for (int64_t e = 0; e < 4; ++e) {
          // The output is rounded once to bf16 (8 significant bits).
          EXPECT_NEAR(out[0].item({b, h, i, e}), expected[e], std::abs(expected[e]) / 128 + 1e-3)
              << "at " << b << ", " << h << ", " << i << ", " << e;
        }
      }
    }
  }
}

TEST_F(ReferenceExecutorTest, SdpaMatchesNaiveAttention) {
  TensorView* q = input({2, 2, 5, 8}, DataType::BFloat16);
  TensorView* k = input({2, 2, 6, 8}, DataType::BFloat16);
  TensorView* v = input({2, 2, 6, 4}, DataType::BFloat16);
  ops::SdpaResult r = ops::sdpfaFwd(q, k, v, nullptr, nullptr, nullptr);
  fusion_.addOutput(r.output);
  fusion_.addOutput(r.logSumExp);
  fusion_.addOutput(r.philoxSeed);
  const Tensor qs = randomTensor(DataType::BFloat16, {2, 2, 5, 8}, 10);
  const Tensor ks = randomTensor(DataType::BFloat16, {2, 2, 6, 8}, 11);
  const Tensor vs = randomTensor(DataType::BFloat16, {2, 2, 6, 4}, 12);
  checkAttention(run({qs, ks, vs}), qs, ks, vs, /*causal=*/false);
}

TEST_F(ReferenceExecutorTest, CausalSdpaMatchesNaiveAttention) {
  TensorView* q = input({2, 2, 5, 8}, DataType::BFloat16);
  TensorView* k = input({2, 2, 6, 8}, DataType::BFloat16);
  TensorView* v = input({2, 2, 6, 4}, DataType::BFloat16);
  ops::SdpaResult r = ops::sdpfaFwd(q, k, v, nullptr, fusion_.constBool(true), nullptr);
  fusion_.addOutput(r.output);
  fusion_.addOutput(r.logSumExp);
  fusion_.addOutput(r.philoxSeed);
  const Tensor qs = randomTensor(DataType::BFloat16, {2, 2, 5, 8}, 13);
  const Tensor ks = randomTensor(DataType::BFloat16, {2, 2, 6, 8}, 14);
  const Tensor vs = randomTensor(DataType::BFloat16, {2, 2, 6, 4}, 15);
  checkAttention(run({qs, ks, vs}), qs, ks, vs, /*causal=*/true);
}

TEST_F(ReferenceExecutorTest, SdpaWithDropoutIsAUserError) {
  TensorView* q = input({1, 1, 2, 4}, DataType::Half);
  TensorView* k = input({1, 1, 2, 4}, DataType::Half);
  TensorView* v = input({1, 1, 2, 4}, DataType::Half);
  fusion_.addOutput(ops::sdpfaFwd(q, k, v, d(0.1), nullptr, nullptr).output);
  const Tensor t = randomTensor(DataType::Half, {1, 1, 2, 4}, 13);
  expectUserError([&] { run({t, t, t}); }, {"sdpfa_fwd", "dropout_p", "0.1"});
}

TEST_F(ReferenceExecutorTest, TimesA1024CubedFloatMatmul) {
  constexpr int64_t kSize = 1024;
  TensorView* a = input({kSize, kSize});
  TensorView* b = input({kSize, kSize});
  fusion_.addOutput(ops::matmul(a, b));
  const Tensor as = randomTensor(DataType::Float, {kSize, kSize}, 14);
  const Tensor bs = randomTensor(DataType::Float, {kSize, kSize}, 15);
  const auto start = std::chrono::steady_clock::now();
  const Tensor out = run({as, bs}).at(0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ reference ] float matmul %lld^3: %.3f s\n", static_cast<long long>(kSize),
              seconds);
  EXPECT_NEAR(out.item({17, 923}), naiveDot(as, bs, 17, 923), 1e-3);
}

}  // namespace
}  // namespace fuserlab::runtime::test
