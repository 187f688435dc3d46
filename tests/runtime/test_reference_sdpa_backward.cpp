// sdpfa_bwd on the CPU reference: its gradients against central finite
// differences of an independent double-precision attention forward (plain
// and causal, with and without an explicit scale), and a bf16 script
// running sdpfa_fwd into sdpfa_bwd as Thunder's backward traces do.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/reference/reference_run.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

struct Sizes {
  int64_t n = 1, h = 2, l = 5, s = 7, e = 4, ev = 3;
};

// softmax(scale q k^T) v and its logsumexp, in double, causal top-left.
void attention(const Sizes& z, bool causal, double scale, const std::vector<double>& q,
               const std::vector<double>& k, const std::vector<double>& v, std::vector<double>& out,
               std::vector<double>& lse) {
  out.assign(static_cast<size_t>(z.n * z.h * z.l * z.ev), 0.0);
  lse.assign(static_cast<size_t>(z.n * z.h * z.l), 0.0);
  for (int64_t bh = 0; bh < z.n * z.h; ++bh) {
    for (int64_t i = 0; i < z.l; ++i) {
      const int64_t visible = causal ? std::min(z.s, i + 1) : z.s;
      std::vector<double> score(static_cast<size_t>(visible));
      double rowMax = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < visible; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < z.e; ++e) {
          dot += q[(bh * z.l + i) * z.e + e] * k[(bh * z.s + j) * z.e + e];
        }
        score[j] = dot * scale;
        rowMax = std::max(rowMax, score[j]);
      }
      double total = 0;
      for (double& sc : score) total += (sc = std::exp(sc - rowMax));
      for (int64_t j = 0; j < visible; ++j) {
        for (int64_t e = 0; e < z.ev; ++e) {
          out[(bh * z.l + i) * z.ev + e] += score[j] / total * v[(bh * z.s + j) * z.ev + e];
        }
      }
      lse[bh * z.l + i] = rowMax + std::log(total);
    }
  }
}

Tensor floatTensor(const std::vector<double>& values, std::vector<int64_t> sizes) {
  Tensor t = Tensor::empty(DataType::Double, std::move(sizes));
  std::copy(values.begin(), values.end(), t.dataAs<double>());
  return t.to(DataType::Float);
}

std::vector<double> doubles(const Tensor& t) {
  const Tensor c = t.to(DataType::Double).contiguous();
  return std::vector<double>(c.dataAs<double>(), c.dataAs<double>() + c.numel());
}

std::string script(bool causal, const std::string& scale) {
  std::ostringstream out;
  out << "from nvfuser import FusionDefinition, DataType\n\n"
      << "def fusion_func(fd : FusionDefinition) -> None :\n";
  for (const char* name : {"T0", "T1", "T2", "T3", "T4"}) {
    out << "    " << name
        << " = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, "
           "True], dtype=DataType.Float)\n";
  }
  out << "    T5 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
         "dtype=DataType.Float)\n"
      << "    T6 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int, "
         "is_cpu=True)\n"
      << "    T7 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int, "
         "is_cpu=True)\n"
      << "    S8 = fd.define_scalar(0.0, dtype=DataType.Double)\n"
      << "    S9 = fd.define_scalar(" << (causal ? "True" : "False") << ", dtype=DataType.Bool)\n"
      << "    T10, T11, T12 = fd.ops.sdpfa_bwd(T0, T1, T2, T3, T4, T5, S8, S9, T6, T7, " << scale
      << ")\n"
      << "    fd.add_output(T10)\n    fd.add_output(T11)\n    fd.add_output(T12)\n"
      << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
  return out.str();
}

class ReferenceSdpaBackwardTest : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(ReferenceSdpaBackwardTest, GradientsMatchFiniteDifferences) {
  const auto [causal, explicitScale] = GetParam();
  const Sizes z;
  const double scale = explicitScale ? 0.3 : 1.0 / std::sqrt(double(z.e));
  std::mt19937 gen(7);
  std::normal_distribution<double> normal;
  auto randomValues = [&](int64_t count) {
    std::vector<double> values(static_cast<size_t>(count));
    for (double& x : values) x = static_cast<float>(normal(gen));  // float-exact
    return values;
  };
  std::vector<double> q = randomValues(z.n * z.h * z.l * z.e);
  std::vector<double> k = randomValues(z.n * z.h * z.s * z.e);
  std::vector<double> v = randomValues(z.n * z.h * z.s * z.ev);
  const std::vector<double> dO = randomValues(z.n * z.h * z.l * z.ev);
  std::vector<double> out, lse;
  attention(z, causal, scale, q, k, v, out, lse);

  const frontend::Script read =
      frontend::readScript(script(causal, explicitScale ? "0.3" : "None"), "bwd.py");
  Tensor seed = Tensor::empty(DataType::Int, {});
  seed.zero();
  const std::vector<Tensor> grads = runReference(
      read.fusion(),
      {floatTensor(dO, {z.n, z.h, z.l, z.ev}), floatTensor(q, {z.n, z.h, z.l, z.e}),
       floatTensor(k, {z.n, z.h, z.s, z.e}), floatTensor(v, {z.n, z.h, z.s, z.ev}),
       floatTensor(out, {z.n, z.h, z.l, z.ev}), floatTensor(lse, {z.n, z.h, z.l}), seed, seed});
  ASSERT_EQ(grads.size(), 3u);

  // d/dx of sum(attention(q, k, v) * dO), central differences.
  auto loss = [&]() {
    std::vector<double> o, unused;
    attention(z, causal, scale, q, k, v, o, unused);
    double total = 0;
    for (size_t i = 0; i < o.size(); ++i) total += o[i] * dO[i];
    return total;
  };
  const double h = 1e-6;
  std::vector<double>* operands[] = {&q, &k, &v};
  const char* names[] = {"grad_query", "grad_key", "grad_value"};
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(names[which]);
    std::vector<double>& x = *operands[which];
    const std::vector<double> computed = doubles(grads[which]);
    ASSERT_EQ(computed.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const double saved = x[i];
      x[i] = saved + h;
      const double up = loss();
      x[i] = saved - h;
      const double down = loss();
      x[i] = saved;
      const double expected = (up - down) / (2 * h);
      EXPECT_NEAR(computed[i], expected, 1e-4 * (1 + std::fabs(expected))) << "element " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CausalAndScale, ReferenceSdpaBackwardTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()));

TEST(ReferenceSdpaBackwardScriptTest, ForwardIntoBackwardInBFloat16) {
  const std::string source =
      "from nvfuser import FusionDefinition, DataType\n\n"
      "def fusion_func(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "    T1 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "    T2 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "    T3 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "    S4 = fd.define_scalar(0.0, dtype=DataType.Double)\n"
      "    S5 = fd.define_scalar(True, dtype=DataType.Bool)\n"
      "    T6, T7, T8, T9 = fd.ops.sdpfa_fwd(T0, T1, T2, S4, S5, None)\n"
      "    T10, T11, T12 = fd.ops.sdpfa_bwd(T3, T0, T1, T2, T6, T7, S4, S5, T8, T9, None)\n"
      "    fd.add_output(T10)\n    fd.add_output(T11)\n    fd.add_output(T12)\n"
      "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
  const frontend::Script read = frontend::readScript(source, "fwd_bwd.py");
  Arguments args;
  std::mt19937 gen(3);
  std::normal_distribution<double> normal;
  for (int i = 0; i < 4; ++i) {
    Tensor t = Tensor::empty(DataType::Double, {2, 4, 16, 8});
    for (int64_t j = 0; j < t.numel(); ++j) t.dataAs<double>()[j] = normal(gen);
    args.emplace_back(t.to(DataType::BFloat16));
  }
  const std::vector<Tensor> grads = runReference(read.fusion(), args);
  ASSERT_EQ(grads.size(), 3u);
  for (const Tensor& g : grads) {
    EXPECT_EQ(g.dtype(), DataType::BFloat16);
    EXPECT_EQ(g.sizes(), (std::vector<int64_t>{2, 4, 16, 8}));
    double norm = 0;
    for (double x : doubles(g)) {
      ASSERT_TRUE(std::isfinite(x));
      norm += x * x;
    }
    EXPECT_GT(norm, 0.0);
  }
  // Causal: query 0 sees key 0 alone (P = 1, so dS = P (dP - D) = 0), and
  // its grad_query row is exactly 0.
  const std::vector<double> dQ = doubles(grads[0]);
  for (int64_t e = 0; e < 8; ++e) EXPECT_EQ(dQ[static_cast<size_t>(e)], 0.0);
}

}  // namespace
}  // namespace fuserlab::runtime
