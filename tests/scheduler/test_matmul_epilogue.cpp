// The matmul epilogue matcher (seed 003): which ops after a matmul or linear
// cuBLASLt computes in the same call, and why the others are left to a
// following kernel. No GPU: the matcher reads only the IR.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/frontend/script.h"
#include "core/ir/evaluator.h"
#include "core/ir/expr.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/matmul/epilogue_matcher.h"
#include "core/scheduler/matmul/matmul_params.h"
#include "core/scheduler/matmul/matmul_scheduler.h"

namespace fuserlab::scheduler {
namespace {

class MatmulEpilogueTest : public ::testing::Test {
 protected:
  void load(std::string_view body) {
    std::ostringstream text;
    text << "from nvfuser import FusionDefinition, DataType\n\n"
         << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) text << "    " << line << "\n";
    script_ = frontend::readScript(text.str(), "test.py");
  }
  const ir::Fusion& fusion() const { return script_.fusion(); }

  const ir::Expr& call() const {
    for (const ir::Expr* expr : fusion().exprsForOutputs()) {
      if (expr->type() == ir::ExprType::Matmul || expr->type() == ir::ExprType::Linear) {
        return *expr;
      }
    }
    throw std::runtime_error("no matmul");
  }
  MatmulMatch match() const { return matchMatmulEpilogue(fusion(), call()); }

  // The first output names of the merged exprs.
  static std::vector<std::string> merged(const MatmulMatch& m) {
    std::vector<std::string> names;
    for (const ir::Expr* e : m.exprs) names.push_back(e->output(0)->name());
    return names;
  }
  static std::string steps(const MatmulMatch& m) {
    std::string out;
    for (const auto& s : m.steps) {
      out += std::string(s.merged ? "+ " : "- ") + s.what + ": " + s.reason + "\n";
    }
    return out;
  }

  frontend::Script script_;
};

constexpr std::string_view kLinearPrologue =
    R"(T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16)
T3 = fd.ops.linear(T0, T1, T2)
T4 = fd.ops.cast(T3, dtype=DataType.Float)
)";

// tanh-GELU as thunder and nvFuser's gelu_tanh example write it.
constexpr std::string_view kTanhGelu =
    R"(T5 = fd.ops.mul(T4, T4)
T6 = fd.ops.mul(T5, T4)
S7 = fd.define_scalar(0.0447150, dtype=DataType.Double)
T8 = fd.ops.mul(S7, T6)
T9 = fd.ops.add(T4, T8)
S10 = fd.define_scalar(0.797885, dtype=DataType.Double)
T11 = fd.ops.mul(S10, T9)
T12 = fd.ops.tanh(T11)
S13 = fd.define_scalar(0.500000, dtype=DataType.Double)
T14 = fd.ops.mul(S13, T4)
S15 = fd.define_scalar(1.00000, dtype=DataType.Double)
T16 = fd.ops.add(S15, T12)
T17 = fd.ops.mul(T14, T16)
)";

// erf-GELU as in resources/examples/linear_bias.py.
constexpr std::string_view kErfGelu =
    R"(S5 = fd.define_scalar(0.707107, dtype=DataType.Double)
T6 = fd.ops.mul(T4, S5)
T7 = fd.ops.erf(T6)
S8 = fd.define_scalar(1.00000, dtype=DataType.Double)
T9 = fd.ops.add(T7, S8)
S10 = fd.define_scalar(0.500000, dtype=DataType.Double)
T11 = fd.ops.mul(T4, S10)
T17 = fd.ops.mul(T11, T9)
)";

TEST_F(MatmulEpilogueTest, LinearBiasTanhGeluCastIsOneCall) {
  load(std::string(kLinearPrologue) + std::string(kTanhGelu) +
       "T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)\nfd.add_output(T18)\n");
  const MatmulMatch m = match();
  EXPECT_EQ(m.epilogue, "GELU_BIAS") << steps(m);
  EXPECT_EQ(m.outputDtype, ir::DataType::BFloat16);
  EXPECT_EQ(m.output, fusion().outputs()[0].val);
  EXPECT_EQ(m.bias->name(), "T2");
  // Every tensor expr of the fusion is in the call: no round trip.
  size_t tensorExprs = 0;
  for (const ir::Expr* e : fusion().exprsForOutputs()) {
    if (e->output(0)->isA<ir::TensorView>()) ++tensorExprs;
  }
  EXPECT_EQ(m.exprs.size(), tensorExprs) << steps(m);
  EXPECT_NE(steps(m).find("tanh-GELU: matches cuBLASLt's GELU"), std::string::npos) << steps(m);
  EXPECT_NE(steps(m).find("the call writes BFloat16 directly"), std::string::npos);
  // And the scheduler takes the whole fusion.
  EXPECT_FALSE(MatmulScheduler().rejectCompileTime(fusion()).has_value());
}

TEST_F(MatmulEpilogueTest, ErfGeluIsNotMergedAndNeitherIsTheUpcast) {
  load(std::string(kLinearPrologue) + std::string(kErfGelu) +
       "T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)\nfd.add_output(T18)\n");
  const MatmulMatch m = match();
  EXPECT_EQ(m.epilogue, "BIAS") << steps(m);
  EXPECT_EQ(merged(m), std::vector<std::string>{"T3"}) << steps(m);
  EXPECT_EQ(m.outputDtype, ir::DataType::BFloat16);
  const std::string s = steps(m);
  // The frontend numbers tensors in order: the region is T5..T9.
  EXPECT_NE(s.find("- {T5, T6, T7, T8, T9}: erf-GELU; cuBLASLt's GELU is the tanh "
                   "approximation"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("- T4 = cast(T3): the chain ends in Float"), std::string::npos) << s;
  const auto reason = MatmulScheduler().rejectCompileTime(fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("is not part of the epilogue cuBLASLt fuses"), std::string::npos)
      << *reason;
}

TEST_F(MatmulEpilogueTest, ClassifiesActivationsNumerically) {
  load(std::string(kLinearPrologue) + std::string(kTanhGelu) + "fd.add_output(T17)\n");
  std::vector<const ir::Expr*> region;
  const ir::Val* x = nullptr;
  for (const ir::Expr* e : fusion().exprsForOutputs()) {
    if (e->type() == ir::ExprType::Cast) x = e->output(0);
    if (x != nullptr && e->type() != ir::ExprType::Cast) region.push_back(e);
  }
  ASSERT_FALSE(region.empty());
  EXPECT_EQ(classifyActivation(region, x, region.back()->output(0)), ActivationKind::TanhGelu);
  // Without its last multiply it is no activation cuBLASLt knows.
  std::vector<const ir::Expr*> partial(region.begin(), region.end() - 1);
  EXPECT_EQ(classifyActivation(partial, x, partial.back()->output(0)), ActivationKind::Other);

  load(std::string(kLinearPrologue) + std::string(kErfGelu) + "fd.add_output(T17)\n");
  region.clear();
  x = nullptr;
  for (const ir::Expr* e : fusion().exprsForOutputs()) {
    if (e->type() == ir::ExprType::Cast) x = e->output(0);
    if (x != nullptr && e->type() != ir::ExprType::Cast) region.push_back(e);
  }
  EXPECT_EQ(classifyActivation(region, x, region.back()->output(0)), ActivationKind::ErfGelu);
}

TEST_F(MatmulEpilogueTest, MatmulBiasAddThroughBroadcastAndRelu) {
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half)
T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half)
T3 = fd.ops.matmul(T0, T1)
T4 = fd.ops.cast(T3, dtype=DataType.Float)
T5 = fd.ops.broadcast_in_dim(T2, shape=T3.shape(), broadcast_dims=[1])
T6 = fd.ops.cast(T5, dtype=DataType.Float)
T7 = fd.ops.add(T4, T6)
S8 = fd.define_scalar(0.00000, dtype=DataType.Double)
T9 = fd.ops.maximum(T7, S8)
T10 = fd.ops.cast(T9, dtype=DataType.Half)
fd.add_output(T10)
)");
  const MatmulMatch m = match();
  EXPECT_EQ(m.epilogue, "RELU_BIAS") << steps(m);
  EXPECT_EQ(m.bias->name(), "T2");
  EXPECT_EQ(m.outputDtype, ir::DataType::Half);
  EXPECT_EQ(m.output, fusion().outputs()[0].val);
  EXPECT_FALSE(MatmulScheduler().rejectCompileTime(fusion()).has_value())
      << *MatmulScheduler().rejectCompileTime(fusion());
}

TEST_F(MatmulEpilogueTest, BiasAlongRowsIsNotCuBlasLtsBias) {
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
T3 = fd.ops.matmul(T0, T1)
T5 = fd.ops.broadcast_in_dim(T2, shape=T3.shape(), broadcast_dims=[0])
T7 = fd.ops.add(T3, T5)
fd.add_output(T7)
)");
  const MatmulMatch m = match();
  EXPECT_EQ(m.epilogue, "none");
  EXPECT_EQ(merged(m), std::vector<std::string>{"T3"});
  EXPECT_NE(steps(m).find("not a bias add"), std::string::npos) << steps(m);
}

TEST_F(MatmulEpilogueTest, UpcastWithoutNarrowingKeepsTheFusionsRounding) {
  // MmaOp + cast to Float alone: fusing the cast would skip the bf16
  // rounding the fusion asks for.
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T2 = fd.ops.matmul(T0, T1)
T3 = fd.ops.cast(T2, dtype=DataType.Float)
fd.add_output(T3)
)");
  const MatmulMatch m = match();
  EXPECT_EQ(merged(m), std::vector<std::string>{"T2"});
  EXPECT_EQ(m.outputDtype, ir::DataType::BFloat16);
  EXPECT_NE(steps(m).find("the chain ends in Float"), std::string::npos) << steps(m);
}

TEST_F(MatmulEpilogueTest, AFusionOutputEndsTheChain) {
  // resources/examples/linear_bias.py: the linear's result is an output too.
  load(std::string(kLinearPrologue) + std::string(kTanhGelu) +
       "T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)\nfd.add_output(T3)\n"
       "fd.add_output(T18)\n");
  const MatmulMatch m = match();
  EXPECT_EQ(merged(m), std::vector<std::string>{"T3"});
  EXPECT_EQ(m.epilogue, "BIAS");
  EXPECT_NE(steps(m).find("T3 is a fusion output"), std::string::npos) << steps(m);
}

TEST_F(MatmulEpilogueTest, SchedulerParamsNameBackendEpilogueAndAlgo) {
  load(std::string(kLinearPrologue) + std::string(kTanhGelu) +
       "T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)\nfd.add_output(T18)\n");
  const MatmulScheduler scheduler;
  SegmentRuntimeInfo info;
  const HeuristicParams params = scheduler.computeHeuristics(fusion(), info);
  const auto& p = std::get<MatmulParams>(params);
  EXPECT_EQ(p.backend, "cublaslt");
  EXPECT_EQ(p.epilogue, "GELU_BIAS");
  EXPECT_EQ(p.algo, "heuristic");
  const report::Json json = paramsToJson(params);
  EXPECT_EQ(json.get("backend")->asString(), "cublaslt");
  EXPECT_EQ(json.get("epilogue")->asString(), "GELU_BIAS");
  EXPECT_EQ(json.get("algo")->asString(), "heuristic");
  EXPECT_EQ(std::get<MatmulParams>(paramsFromJson(SchedulerType::Matmul, json)), p);
  // Only the algorithm may differ.
  MatmulParams other = p;
  other.algo = "heuristic:2";
  EXPECT_FALSE(scheduler.rejectParams(fusion(), info, other).has_value());
  EXPECT_EQ(heuristicIndex("heuristic:2"), 2);
  EXPECT_EQ(heuristicIndex("fast"), -1);
  other.epilogue = "BIAS";
  EXPECT_TRUE(scheduler.rejectParams(fusion(), info, other).has_value());
  EXPECT_NE(paramsHash(p), paramsHash(HeuristicParams(other)));
}

TEST_F(MatmulEpilogueTest, SdpaRunsAloneOnTheAttentionKernel) {
  load(
      R"(T0 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T1 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T2 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T6, T7, T8, T9 = fd.ops.sdpfa_fwd(T0, T1, T2)
fd.add_output(T6)
)");
  const MatmulScheduler scheduler;
  EXPECT_FALSE(scheduler.rejectCompileTime(fusion()).has_value());
  SegmentRuntimeInfo info;
  EXPECT_EQ(std::get<MatmulParams>(scheduler.computeHeuristics(fusion(), info)).backend,
            "attention_kernel");
  // The report says which generated kernel and why: a head dimension of 8
  // is too small for the tensor cores' tiles.
  ir::ExpressionEvaluator evaluator;
  info.evaluator = &evaluator;
  const DeviceSpec h100 = findBuiltinDevice("h100").value();
  info.device = &h100;
  const std::string narrow = scheduler.properties(fusion(), info).dump(-1);
  EXPECT_NE(narrow.find("\"kernel\":\"one_row\""), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("the head dimension 8 is not a multiple of 16 from 16 to 128"),
            std::string::npos)
      << narrow;
  load(
      R"(T0 = fd.define_tensor(shape=[2, 4, 16, 64], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T1 = fd.define_tensor(shape=[2, 4, 16, 64], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T2 = fd.define_tensor(shape=[2, 4, 16, 64], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T6, T7, T8, T9 = fd.ops.sdpfa_fwd(T0, T1, T2)
fd.add_output(T6)
)");
  const std::string tiled = scheduler.properties(fusion(), info).dump(-1);
  EXPECT_NE(tiled.find("\"kernel\":\"tiled_tensor_core\""), std::string::npos) << tiled;
  EXPECT_NE(tiled.find("\"head_dimension\":64"), std::string::npos) << tiled;
  load(
      R"(T0 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T1 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T2 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
T6, T7, T8, T9 = fd.ops.sdpfa_fwd(T0, T1, T2)
T10 = fd.ops.cast(T6, dtype=DataType.Float)
fd.add_output(T10)
)");
  const auto reason = scheduler.rejectCompileTime(fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("runs alone"), std::string::npos) << *reason;
}

}  // namespace
}  // namespace fuserlab::scheduler
