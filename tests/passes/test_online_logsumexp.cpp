// online_logsumexp and gather_through_pointwise (issue 45, item 3): the
// log-softmax statistics in one pass, and cross-entropy's pick at the label
// computed from the picked logits alone. Each rewrite is checked twice: what
// the IR became, and that the CPU reference gives the same outputs before
// and after on random logits (with -inf entries, as masked logits have).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/cloner.h"
#include "core/ir/evaluator.h"
#include "core/passes/gather_through_pointwise.h"
#include "core/passes/online_logsumexp.h"
#include "core/reference/reference_executor.h"
#include "core/tensor/binding.h"
#include "core/tensor/random_fill.h"
#include "core/tensor/result_check.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

using runtime::Arguments;
using runtime::Tensor;

// x - max(x) - log(sum(exp(x - max(x)))) as Thunder writes log_softmax.
constexpr const char* kLogSoftmax = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.max(T2, dims=[1], keepdim=False, dtype=DataType.Null)
T4 = fd.ops.broadcast_in_dim(T3, shape=[6, 1], broadcast_dims=[0])
T5 = fd.ops.broadcast_in_dim(T4, shape=[6, 50], broadcast_dims=[0, 1])
T6 = fd.ops.sub(T2, T5)
T7 = fd.ops.exp(T6)
T8 = fd.ops.sum(T7, dims=[1], keepdim=False, dtype=DataType.Null)
T9 = fd.ops.log(T8)
T10 = fd.ops.broadcast_in_dim(T9, shape=[6, 1], broadcast_dims=[0])
T11 = fd.ops.broadcast_in_dim(T10, shape=[6, 50], broadcast_dims=[0, 1])
T12 = fd.ops.sub(T6, T11)
)";

class OnlineLogSumExpTest : public PassFixture {
 protected:
  // Random logits [6, 50] (every 7th entry -inf; row 3 has one +inf when
  // `withInf`) and labels [6, K] in [0, 50).
  Arguments inputs(int64_t labelsPerRow, bool withInf = false) const {
    Tensor logits = Tensor::empty(ir::DataType::BFloat16, {6, 50});
    runtime::fillNormal(logits, 11, 0.0, 4.0);
    for (int64_t i = 0; i < 6 * 50; i += 7) {
      logits.set({i / 50, i % 50}, -std::numeric_limits<double>::infinity());
    }
    if (withInf) logits.set({3, 20}, std::numeric_limits<double>::infinity());
    Arguments args{logits};
    if (fusion_->inputs().size() > 1) {
      Tensor labels = Tensor::empty(ir::DataType::Int, {6, labelsPerRow});
      runtime::fillRandint(labels, 12, 0, 50);
      args.emplace_back(labels);
    }
    return args;
  }

  // The rewrites leave no dead expr behind: every use of every value is an
  // expr the outputs need (later passes and the segmenter count uses).
  void expectOnlyLiveUses() const {
    const std::vector<ir::Expr*> live = fusion_->exprsForOutputs();
    for (const auto& val : fusion_->vals()) {
      for (const ir::Expr* use : val->uses()) {
        EXPECT_NE(std::find(live.begin(), live.end(), use), live.end())
            << val->name() << " is read by a dead expr: " << use->toString();
      }
    }
  }

  static std::vector<Tensor> evaluate(const ir::Fusion& fusion, const Arguments& args) {
    ir::ExpressionEvaluator evaluator;
    const Arguments bound = runtime::bindInputs(fusion, args, evaluator);
    return runtime::evaluateReference(fusion, bound, evaluator);
  }

  // Runs both passes and expects the reference's outputs unchanged.
  std::vector<PassRecord> rewriteKeepingValues(const Arguments& args) {
    const std::vector<Tensor> before = evaluate(*fusion_, args);
    std::vector<PassRecord> records{run(OnlineLogSumExpPass()), run(GatherThroughPointwisePass())};
    expectOnlyLiveUses();
    const std::vector<Tensor> after = evaluate(*fusion_, args);
    EXPECT_EQ(before.size(), after.size());
    for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
      const runtime::TensorCheck check = runtime::checkTensor(after[i], before[i], "output");
      EXPECT_TRUE(check.passed) << check.message;
    }
    return records;
  }
};

TEST_F(OnlineLogSumExpTest, CrossEntropyReadsTheLogitsOnceAndPicksTheLabelsLogits) {
  read(std::string(kLogSoftmax) + R"(
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
T14 = fd.ops.take_along_axis(T12, T1, dim=1)
T15 = fd.ops.sum(T14, dims=[0, 1], keepdim=False, dtype=DataType.Null)
fd.add_output(T15)
fd.add_output(T14)
)");
  const std::vector<PassRecord> records = rewriteKeepingValues(inputs(1));
  ASSERT_EQ(records[0].rewrites.size(), 1u);
  // IR names: T1 is the script's T2 (the float logits), T2 its T3 (the max).
  EXPECT_NE(records[0].rewrites[0].find("= logsumexp(T1) beside T2 = max(T1)"), std::string::npos)
      << records[0].rewrites[0];
  ASSERT_EQ(records[1].rewrites.size(), 1u);
  EXPECT_NE(records[1].rewrites[0].find("= take_along_axis(T11, T12, dim=1) is computed as"),
            std::string::npos)
      << records[1].rewrites[0];
  // No exp of the logits, no full-size subtraction: the gather reads T0.
  const std::string printed = ir();
  EXPECT_EQ(printed.find("= exp("), std::string::npos) << printed;
  EXPECT_EQ(printed.find("= sum(T6"), std::string::npos) << printed;
  EXPECT_NE(printed.find("= take_along_axis(T0, T12"), std::string::npos) << printed;
}

TEST_F(OnlineLogSumExpTest, SeveralLabelsARowAndAPositiveInfinityKeepTheirValues) {
  read(std::string(kLogSoftmax) + R"(
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
T14 = fd.ops.take_along_axis(T12, T1, dim=1)
fd.add_output(T14)
)");
  const std::vector<PassRecord> records = rewriteKeepingValues(inputs(4, /*withInf=*/true));
  EXPECT_EQ(records[0].rewrites.size(), 1u);
  EXPECT_EQ(records[1].rewrites.size(), 1u);
}

TEST_F(OnlineLogSumExpTest, ALogSoftmaxOutputKeepsItsElementsAndLosesTheExpPass) {
  read(std::string(kLogSoftmax) + "fd.add_output(T12)\n");
  const std::vector<PassRecord> records = rewriteKeepingValues(inputs(0));
  EXPECT_EQ(records[0].rewrites.size(), 1u);
  EXPECT_TRUE(records[1].rewrites.empty());
  EXPECT_EQ(ir().find("= exp("), std::string::npos) << ir();
}

TEST_F(OnlineLogSumExpTest, ASoftmaxThatReadsTheExpsStaysTwoPasses) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.max(T0, dims=[1], keepdim=False, dtype=DataType.Null)
T2 = fd.ops.broadcast_in_dim(T1, shape=[6, 50], broadcast_dims=[0])
T3 = fd.ops.sub(T0, T2)
T4 = fd.ops.exp(T3)
T5 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
T6 = fd.ops.broadcast_in_dim(T5, shape=[6, 50], broadcast_dims=[0])
T7 = fd.ops.div(T4, T6)
fd.add_output(T7)
)");
  const std::string before = ir();
  const PassRecord record = run(OnlineLogSumExpPass());
  EXPECT_TRUE(record.rewrites.empty()) << record.rewrites.front();
  EXPECT_EQ(ir(), before);
}

TEST_F(OnlineLogSumExpTest, NarrowLogitsOrAnotherAxisMaxAreNotRewritten) {
  // The max over another axis than the sum's, and ops on bf16 directly
  // (each rounds to bf16, which logsumexp would not).
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.max(T0, dims=[0], keepdim=False, dtype=DataType.Null)
T2 = fd.ops.broadcast_in_dim(T1, shape=[6, 50], broadcast_dims=[1])
T3 = fd.ops.sub(T0, T2)
T4 = fd.ops.exp(T3)
T5 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T5)
T10 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T11 = fd.ops.max(T10, dims=[1], keepdim=False, dtype=DataType.Null)
T12 = fd.ops.broadcast_in_dim(T11, shape=[6, 50], broadcast_dims=[0])
T13 = fd.ops.sub(T10, T12)
T14 = fd.ops.exp(T13)
T15 = fd.ops.sum(T14, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T15)
)");
  const std::string before = ir();
  const PassRecord record = run(OnlineLogSumExpPass());
  EXPECT_TRUE(record.rewrites.empty()) << record.rewrites.front();
  EXPECT_EQ(ir(), before);
}

TEST_F(OnlineLogSumExpTest, AGatherFromATensorReadElsewhereStays) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
T2 = fd.ops.mul(T0, T0)
T3 = fd.ops.take_along_axis(T2, T1, dim=1)
fd.add_output(T2)
fd.add_output(T3)
)");
  const std::string before = ir();
  const PassRecord record = run(GatherThroughPointwisePass());
  EXPECT_TRUE(record.rewrites.empty()) << record.rewrites.front();
  EXPECT_EQ(ir(), before);
}

TEST_F(OnlineLogSumExpTest, AGatherOfAProductPicksBothFactors) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.mul(T2, T2)
T4 = fd.ops.take_along_axis(T3, T1, dim=1)
fd.add_output(T4)
)");
  const std::vector<PassRecord> records = rewriteKeepingValues(inputs(3));
  EXPECT_EQ(records[1].rewrites.size(), 1u);
  EXPECT_EQ(ir().find("mul(T2, T2)"), std::string::npos) << ir();
}

}  // namespace
}  // namespace fuserlab::passes::test
