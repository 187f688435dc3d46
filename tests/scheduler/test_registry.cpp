// The registry and its two kernel-free schedulers: no_op (segments that
// compute nothing) and expr_eval (views of the inputs; library calls are the
// matmul scheduler's), each refusal's reason, the priority order the schedulers are
// tried in, and params from a HeuristicProvider checked before use.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>

#include "core/compiler/input_description.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/scheduler/expr_eval/expr_eval_scheduler.h"
#include "core/scheduler/expr_eval/view_strides.h"
#include "core/scheduler/no_op/no_op_scheduler.h"
#include "core/scheduler/registry.h"

namespace fuserlab::scheduler {
namespace {

using ir::DataType;

// One input as the segment sees it: sizes, and strides (row-major if empty).
struct InputShape {
  InputShape(std::vector<int64_t> sizes, std::vector<int64_t> strides = {})
      : sizes(std::move(sizes)), strides(std::move(strides)) {}
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
};

class RegistryTest : public ::testing::Test {
 protected:
  // Reads a definition body (lines without indentation) and binds its tensor
  // inputs to metadata-only tensors of the given shapes.
  void load(std::string_view body, const std::vector<InputShape>& inputs) {
    std::ostringstream text;
    text << "from nvfuser import FusionDefinition, DataType\n\n"
         << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) text << "    " << line << "\n";
    script_ = frontend::readScript(text.str(), "test.py");
    runtime::Arguments args;
    const auto& fusionInputs = fusion().inputs();
    ASSERT_EQ(fusionInputs.size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<int64_t> strides = inputs[i].strides;
      if (strides.empty()) strides = contiguousStrides(inputs[i].sizes);
      args.push_back(runtime::metadataOnly(fusionInputs[i]->dtype(), inputs[i].sizes, strides));
    }
    evaluator_ = ir::ExpressionEvaluator();
    info_ = SegmentRuntimeInfo();
    info_.device = &defaultDevice();
    info_.evaluator = &evaluator_;
    info_.inputs = runtime::describeInputs(fusion(), args, evaluator_);
  }

  const ir::Fusion& fusion() const { return script_.fusion(); }

  // The reason `scheduler` refuses the loaded segment (compile time, then
  // run time), or "" if it accepts.
  std::string refusal(const Scheduler& scheduler) const {
    if (auto reason = scheduler.rejectCompileTime(fusion())) return *reason;
    if (auto reason = scheduler.rejectRunTime(fusion(), info_)) return *reason;
    return "";
  }

  frontend::Script script_;
  ir::ExpressionEvaluator evaluator_;
  SegmentRuntimeInfo info_;
};

constexpr const char* kAdd =
    R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.add(T0, T0)
fd.add_output(T1))";

TEST_F(RegistryTest, NoOpTakesASegmentThatHandsBackItsInput) {
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
fd.add_output(T0))",
       {{{8, 4}}});
  auto choice = chooseScheduler(fusion(), info_);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->type, SchedulerType::NoOp);
  EXPECT_FALSE(launchesKernel(choice->type));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(choice->params));
  // expr_eval comes first and leaves a segment without exprs to no_op.
  ASSERT_EQ(choice->rejected.size(), 1u);
  EXPECT_EQ(choice->rejected[0].scheduler, SchedulerType::ExprEval);
  EXPECT_NE(choice->rejected[0].reason.find("no exprs"), std::string::npos);
}

TEST_F(RegistryTest, NoOpTakesComputedOutputsThatAreEmpty) {
  load(R"(T0 = fd.define_tensor(shape=[0, 8], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.add(T0, T0)
fd.add_output(T1))",
       {{{0, 8}}});
  EXPECT_EQ(refusal(NoOpScheduler()), "");
  auto choice = chooseScheduler(fusion(), info_);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->type, SchedulerType::NoOp);
}

TEST_F(RegistryTest, NoOpRefusesOutputsThatCannotBeEmpty) {
  load(R"(T0 = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.add(T0, T0)
fd.add_output(T1))",
       {{{4, 8}}});
  const auto reason = NoOpScheduler().rejectCompileTime(fusion());
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("output T1 of shape [4, 8] is computed by the segment "
                         "(T1 = add(T0, T0)) and has no zero extent"),
            std::string::npos)
      << *reason;
  EXPECT_NE(reason->find("no_op only takes segments whose outputs are segment "
                         "inputs or empty tensors"),
            std::string::npos);
}

TEST_F(RegistryTest, NoOpDecidesSymbolicEmptinessAtRunTime) {
  NoOpScheduler noOp;
  load(kAdd, {{{0, 4}}});
  EXPECT_FALSE(noOp.rejectCompileTime(fusion()).has_value());
  EXPECT_FALSE(noOp.rejectRunTime(fusion(), info_).has_value());
  load(kAdd, {{{128, 64}}});
  EXPECT_FALSE(noOp.rejectCompileTime(fusion()).has_value());
  const auto reason = noOp.rejectRunTime(fusion(), info_);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("output T1 has shape [128, 64] at these sizes"), std::string::npos)
      << *reason;
}

TEST_F(RegistryTest, ExprEvalTakesAChainOfViews) {
  // meta_op_chain.py without its computation: every output is a view.
  load(
      R"(T0 = fd.define_tensor(shape=[1, -1, -1], contiguity=[None, True, True], dtype=DataType.BFloat16, stride_order=[2, 1, 0])
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16)
T2 = fd.ops.squeeze(T0, dims=[0])
T3 = fd.ops.slice(T2, start_indices=[0, 1024], end_indices=[512, 2048], strides=[1, 1])
T4 = fd.ops.reshape(T3, new_shape=[512, 16, 64])
T5 = fd.ops.permute(T4, dims=[1, 0, 2])
T6 = fd.ops.broadcast_in_dim(T1, shape=[16, 1, 1], broadcast_dims=[0])
T7 = fd.ops.expand(T6, shape=[16, 512, 64])
fd.add_output(T5)
fd.add_output(T7))",
      {{{1, 512, 3072}, {1572864, 3072, 1}}, {{16}}});
  auto choice = chooseScheduler(fusion(), info_);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->type, SchedulerType::ExprEval);
  EXPECT_TRUE(choice->rejected.empty());
  EXPECT_EQ(choice->properties.get("evaluation")->asString(), "views");
  // The slice's stride ruins nothing: the reshape splits within a dense row.
}

TEST_F(RegistryTest, ExprEvalRefusesTheFirstExprThatComputes) {
  load(kAdd, {{{128, 64}}});
  const std::string reason = refusal(ExprEvalScheduler());
  EXPECT_NE(reason.find("T1 = add(T0, T0) computes new values, which needs a "
                        "kernel; expr_eval only takes views"),
            std::string::npos)
      << reason;
}

TEST_F(RegistryTest, ExprEvalReshapeIsAViewOnlyWhenTheStridesAllowIt) {
  ExprEvalScheduler exprEval;
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.reshape(T0, new_shape=[2048])
fd.add_output(T1))",
       {{{64, 32}}});
  EXPECT_EQ(refusal(exprEval), "");
  // A column-major input: flattening it in logical order is a copy.
  constexpr const char* kColumnMajor =
      R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, stride_order=[0, 1])
T1 = fd.ops.reshape(T0, new_shape=[2048])
fd.add_output(T1))";
  load(kColumnMajor, {{{64, 32}, {1, 64}}});
  EXPECT_FALSE(exprEval.rejectCompileTime(fusion()).has_value());
  const std::string reason = refusal(exprEval);
  EXPECT_NE(reason.find("T1 = reshape(T0, 2048) cannot be a view: its input T0 "
                        "has sizes [64, 32] and strides [1, 64]"),
            std::string::npos)
      << reason;
  // Without described strides, the declared stride order decides the same.
  info_.inputs.clear();
  EXPECT_EQ(refusal(exprEval), reason);
}

TEST_F(RegistryTest, ExprEvalSetKeepsOrChangesTheLayout) {
  ExprEvalScheduler exprEval;
  // A transpose laid out as its input already is: a view.
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.stride_order(T1, stride_order=[0, 1])
fd.add_output(T2))",
       {{{64, 32}}});
  EXPECT_EQ(refusal(exprEval), "");
  // Asking for the other layout is a copy.
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.stride_order(T0, stride_order=[0, 1])
fd.add_output(T1))",
       {{{64, 32}}});
  EXPECT_FALSE(exprEval.rejectCompileTime(fusion()).has_value());
  const std::string reason = refusal(exprEval);
  EXPECT_NE(reason.find("T1 is declared with stride order [0, 1] (contiguous), "
                        "but as a view it would have sizes [64, 32] and "
                        "strides [32, 1]"),
            std::string::npos)
      << reason;
}

TEST_F(RegistryTest, MatmulSchedulerTakesMatmulsWithTheirEpilogueNotExprEval) {
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T2 = fd.ops.matmul(T0, T1)
fd.add_output(T2))",
       {{{64, 32}}, {{32, 16}}});
  EXPECT_NE(refusal(ExprEvalScheduler()).find("is a library call, which the matmul scheduler runs"),
            std::string::npos);
  auto choice = chooseScheduler(fusion(), info_);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->type, SchedulerType::Matmul);
  EXPECT_EQ(choice->properties.get("backend")->asString(), "cublaslt");
  EXPECT_EQ(choice->properties.get("op")->asString(), "matmul");
  const auto& params = std::get<MatmulParams>(choice->params);
  EXPECT_EQ(params.epilogue, "none");
  EXPECT_EQ(params.outputDtype, "BFloat16");

  // ReLU is an epilogue cuBLASLt fuses: the same segment.
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T2 = fd.ops.matmul(T0, T1)
T3 = fd.ops.relu(T2)
fd.add_output(T3))",
       {{{64, 32}}, {{32, 16}}});
  choice = chooseScheduler(fusion(), info_);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->type, SchedulerType::Matmul);
  EXPECT_EQ(std::get<MatmulParams>(choice->params).epilogue, "RELU");

  // exp is not: every scheduler refuses the matmul with it.
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
T2 = fd.ops.matmul(T0, T1)
T3 = fd.ops.exp(T2)
fd.add_output(T3))",
       {{{64, 32}}, {{32, 16}}});
  std::vector<Rejection> rejected;
  EXPECT_FALSE(chooseScheduler(fusion(), info_, nullptr, &rejected).has_value());
  ASSERT_EQ(rejected.size(), registeredSchedulers().size());
  bool sawMatmul = false;
  for (size_t i = 0; i < rejected.size(); ++i) {
    EXPECT_EQ(rejected[i].scheduler, registeredSchedulers()[i]->type());
    EXPECT_FALSE(rejected[i].reason.empty());
    if (rejected[i].scheduler == SchedulerType::Matmul) {
      sawMatmul = true;
      EXPECT_NE(rejected[i].reason.find("T3 = exp(T2) is not part of the epilogue"),
                std::string::npos)
          << rejected[i].reason;
    }
  }
  EXPECT_TRUE(sawMatmul);
}

TEST_F(RegistryTest, ExprEvalRefusesInPlaceOutputs) {
  load(R"(T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
T1 = fd.ops.reshape(T0, new_shape=[-1])
fd.add_output(T1, alias_input=T0))",
       {{{16}}});
  const std::string reason = refusal(ExprEvalScheduler());
  EXPECT_NE(reason.find("output T1 is written in place into input T0"), std::string::npos)
      << reason;
}

TEST_F(RegistryTest, SchedulersAreTriedInPriorityOrder) {
  const auto& priority = schedulerPriority();
  ASSERT_EQ(priority.size(), 9u);
  EXPECT_EQ(priority[0], SchedulerType::ExprEval);
  EXPECT_EQ(priority[1], SchedulerType::NoOp);
  EXPECT_EQ(priority[3], SchedulerType::Reduction);
  EXPECT_EQ(priority[8], SchedulerType::Communication);

  const auto& registered = registeredSchedulers();
  ASSERT_GE(registered.size(), 2u);
  EXPECT_EQ(registered[0]->type(), SchedulerType::ExprEval);
  EXPECT_EQ(registered[1]->type(), SchedulerType::NoOp);
  auto position = [&](SchedulerType type) {
    return std::find(priority.begin(), priority.end(), type) - priority.begin();
  };
  for (size_t i = 1; i < registered.size(); ++i) {
    EXPECT_LT(position(registered[i - 1]->type()), position(registered[i]->type()));
  }
  for (const Scheduler* scheduler : registered) {
    EXPECT_EQ(&schedulerFor(scheduler->type()), scheduler);
  }
  EXPECT_EQ(schedulerFor(SchedulerType::Matmul).type(), SchedulerType::Matmul);
  // Communication is built in and tried last: only a resharding set reaches
  // it, every other scheduler refusing one.
  EXPECT_EQ(registered.back()->type(), SchedulerType::Communication);

  // A computing segment collects the kernel-free schedulers' reasons first.
  load(kAdd, {{{128, 64}}});
  std::vector<Rejection> rejected;
  const bool accepted = canSchedule(fusion(), info_, &rejected);
  ASSERT_GE(rejected.size(), 2u);
  EXPECT_EQ(rejected[0].scheduler, SchedulerType::ExprEval);
  EXPECT_EQ(rejected[1].scheduler, SchedulerType::NoOp);
  EXPECT_EQ(rejected.size() + (accepted ? 1 : 0) <= registered.size(), true);
  for (size_t i = 0; i < rejected.size(); ++i) {
    EXPECT_EQ(rejected[i].scheduler, registered[i]->type());
  }
}

TEST(SchedulerTypeTest, NamesRoundTrip) {
  for (SchedulerType type : schedulerPriority()) {
    EXPECT_EQ(parseSchedulerType(toString(type)), type);
  }
  EXPECT_EQ(toString(SchedulerType::InnerPersistent), "inner_persistent");
  EXPECT_EQ(toString(SchedulerType::NoOp), "no_op");
  EXPECT_FALSE(parseSchedulerType("persistent").has_value());
  EXPECT_FALSE(launchesKernel(SchedulerType::ExprEval));
  EXPECT_FALSE(launchesKernel(SchedulerType::NoOp));
  EXPECT_TRUE(launchesKernel(SchedulerType::Pointwise));
  EXPECT_TRUE(launchesKernel(SchedulerType::Matmul));
}

// A provider that answers every lookup with fixed params and records the
// scheduler type it was asked about.
class FakeProvider : public HeuristicProvider {
 public:
  explicit FakeProvider(HeuristicParams params) : params_(std::move(params)) {}
  std::optional<ProvidedParams> lookup(const ir::Fusion&, SchedulerType type,
                                       const SegmentRuntimeInfo&) const override {
    askedFor_.push_back(type);
    return ProvidedParams{params_, "fake database"};
  }
  mutable std::vector<SchedulerType> askedFor_;

 private:
  HeuristicParams params_;
};

TEST_F(RegistryTest, ProviderParamsAreCheckedBeforeUse) {
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.permute(T0, dims=[1, 0])
fd.add_output(T1))",
       {{{64, 32}}});
  // Params the chosen scheduler cannot use: the heuristic's are kept.
  FakeProvider wrong{PointwiseParams{}};
  auto choice = chooseScheduler(fusion(), info_, &wrong);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->type, SchedulerType::ExprEval);
  EXPECT_EQ(wrong.askedFor_, std::vector<SchedulerType>{SchedulerType::ExprEval});
  EXPECT_EQ(choice->paramsSource, "heuristic");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(choice->params));
  EXPECT_EQ(choice->providerRejection,
            "params from fake database refused: expr_eval takes no params, but "
            "pointwise params were given");

  // Params it accepts are used, and the report names their source.
  FakeProvider right{std::monostate{}};
  choice = chooseScheduler(fusion(), info_, &right);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->paramsSource, "fake database");
  EXPECT_TRUE(choice->providerRejection.empty());

  // canSchedule computes no params and asks no provider.
  EXPECT_TRUE(canSchedule(fusion(), info_));
}

// findAcceptingScheduler asks the guesses first and stops at one that
// accepts; when none does, its reasons are canSchedule's, in priority order.
TEST_F(RegistryTest, FindAcceptingSchedulerAsksTheGuessesFirst) {
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.permute(T0, dims=[1, 0])
fd.add_output(T1))",
       {{{64, 32}}});
  // No guess: the first in priority order, as chooseScheduler picks.
  EXPECT_EQ(findAcceptingScheduler(fusion(), info_, {}), SchedulerType::ExprEval);
  // A guess that refuses (no_op: the output is computed) is passed over.
  EXPECT_EQ(findAcceptingScheduler(fusion(), info_, {SchedulerType::NoOp}),
            SchedulerType::ExprEval);
  // A guess that accepts is the answer, though expr_eval comes first (in
  // the full registry, the kernel schedulers that take a permute too).
  const auto& registered = registeredSchedulers();
  int laterAcceptors = 0;
  for (const Scheduler* s : registered) {
    if (s->type() == SchedulerType::ExprEval || s->rejectCompileTime(fusion()) ||
        s->rejectRunTime(fusion(), info_)) {
      continue;
    }
    ++laterAcceptors;
    EXPECT_EQ(findAcceptingScheduler(fusion(), info_, {s->type()}), s->type());
  }
#ifndef FUSERLAB_REGISTRY_BUILTIN_ONLY
  EXPECT_GT(laterAcceptors, 0);
#endif

  // Row and column sums of one tensor: no scheduler takes both.
  load(R"(T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.sum(T0, dims=[1])
T2 = fd.ops.sum(T0, dims=[0])
T3 = fd.ops.exp(T0)
fd.add_output(T1)
fd.add_output(T2)
fd.add_output(T3))",
       {{{256, 128}}});
  std::vector<Rejection> inOrder;
  ASSERT_FALSE(canSchedule(fusion(), info_, &inOrder));
  std::vector<Rejection> guessed = {{SchedulerType::NoOp, "stale"}};
  EXPECT_FALSE(findAcceptingScheduler(
      fusion(), info_,
      {SchedulerType::OuterPersistent, SchedulerType::Pointwise, SchedulerType::NoOp}, &guessed));
  ASSERT_EQ(guessed.size(), inOrder.size());
  ASSERT_EQ(guessed.size(), registered.size());
  for (size_t i = 0; i < guessed.size(); ++i) {
    EXPECT_EQ(guessed[i].scheduler, inOrder[i].scheduler);
    EXPECT_EQ(guessed[i].reason, inOrder[i].reason);
  }
}

TEST(ViewStridesTest, ReshapeFollowsPyTorchsViewRule) {
  using Strides = std::optional<std::vector<int64_t>>;
  auto v = [](std::vector<int64_t> strides) { return Strides(std::move(strides)); };
  // Splitting and merging dense axes.
  EXPECT_EQ(reshapeViewStrides({4, 6}, {6, 1}, {24}), v({1}));
  EXPECT_EQ(reshapeViewStrides({24}, {1}, {2, 3, 4}), v({12, 4, 1}));
  // A row slice: the inner axis may split, the rows may not merge.
  EXPECT_EQ(reshapeViewStrides({512, 1024}, {3072, 1}, {512, 16, 64}), v({3072, 64, 1}));
  EXPECT_EQ(reshapeViewStrides({512, 1024}, {3072, 1}, {512 * 1024}), std::nullopt);
  // Transposed: no merge.
  EXPECT_EQ(reshapeViewStrides({64, 32}, {1, 64}, {2048}), std::nullopt);
  // Expanded axes merge among themselves (stride 0).
  EXPECT_EQ(reshapeViewStrides({16, 128, 4}, {0, 0, 1}, {2048, 4}), v({0, 1}));
  // Size-1 axes come and go anywhere; empty tensors view anything.
  EXPECT_EQ(reshapeViewStrides({3, 1, 5}, {5, 99, 1}, {1, 15}), v({15, 1}));
  EXPECT_EQ(reshapeViewStrides({0, 4}, {1, 7}, {4, 0}), v({1, 1}));
  EXPECT_EQ(reshapeViewStrides({4, 6}, {6, 1}, {5, 5}), std::nullopt);
}

}  // namespace
}  // namespace fuserlab::scheduler
