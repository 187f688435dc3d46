// refine_reshaped_reductions (issue 45, item 2): a GroupNorm's statistics over
// the axes its reshape merged are computed over the finer axes instead, so
// one inner persistent kernel can take the whole normalization. Each rewrite
// is checked twice: what the IR became, and that the CPU reference gives the
// same outputs before and after on random inputs; where the shapes have no
// common refinement, or an op reached has no form in it, the fusion is left
// exactly as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/ir/evaluator.h"
#include "core/passes/refine_reshaped_reductions.h"
#include "core/reference/reference_executor.h"
#include "core/tensor/binding.h"
#include "core/tensor/random_fill.h"
#include "core/tensor/result_check.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

using runtime::Arguments;
using runtime::Tensor;

// GroupNorm + SiLU as the suite writes it (gen_suite.py), at [N, C, H, W] with
// G groups: reshape to [N, G, C/G*H*W], var_mean, back to NCHW, affine.
std::string groupNorm(int64_t n, int64_t c, int64_t h, int64_t w, int64_t g) {
  const std::string nchw = "[" + std::to_string(n) + ", " + std::to_string(c) + ", " +
                           std::to_string(h) + ", " + std::to_string(w) + "]";
  const std::string rows = std::to_string(c / g * h * w);
  const std::string ng = std::to_string(n) + ", " + std::to_string(g);
  return R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False)
T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False)
T3 = fd.ops.cast(T0, dtype=DataType.Float)
T4 = fd.ops.reshape(T3, new_shape=[)" +
         ng + ", " + rows + R"(])
T5, T6 = fd.ops.var_mean(T4, dims=[2], correction=0, keepdim=False)
T7 = fd.ops.broadcast_in_dim(T5, shape=[)" +
         ng + R"(, 1], broadcast_dims=[0, 1])
T8 = fd.ops.broadcast_in_dim(T6, shape=[)" +
         ng + R"(, 1], broadcast_dims=[0, 1])
T10 = fd.ops.add(T7, 1e-05)
T11 = fd.ops.rsqrt(T10)
T12 = fd.ops.broadcast_in_dim(T8, shape=[)" +
         ng + ", " + rows + R"(], broadcast_dims=[0, 1, 2])
T13 = fd.ops.sub(T4, T12)
T14 = fd.ops.broadcast_in_dim(T11, shape=[)" +
         ng + ", " + rows + R"(], broadcast_dims=[0, 1, 2])
T15 = fd.ops.mul(T13, T14)
T16 = fd.ops.reshape(T15, new_shape=)" +
         nchw + R"()
T17 = fd.ops.broadcast_in_dim(T1, shape=)" +
         nchw + R"(, broadcast_dims=[1])
T18 = fd.ops.cast(T17, dtype=DataType.Float)
T19 = fd.ops.mul(T16, T18)
T20 = fd.ops.broadcast_in_dim(T2, shape=)" +
         nchw + R"(, broadcast_dims=[1])
T21 = fd.ops.cast(T20, dtype=DataType.Float)
T22 = fd.ops.add(T19, T21)
T25 = fd.ops.silu(T22)
T26 = fd.ops.cast(T25, dtype=DataType.Half)
fd.add_output(T26)
fd.add_output(T6)
fd.add_output(T11)
)";
}

class RefineReshapedReductionsTest : public PassFixture {
 protected:
  // Random non-zero inputs of the fusion's inputs at `shapes`.
  static Arguments inputs(const std::vector<std::vector<int64_t>>& shapes,
                          ir::DataType dtype = ir::DataType::Half) {
    Arguments args;
    uint64_t seed = 31;
    for (const std::vector<int64_t>& shape : shapes) {
      Tensor t = Tensor::empty(dtype, shape);
      runtime::fillNormal(t, seed++, 0.5, 2.0);
      args.emplace_back(t);
    }
    return args;
  }

  static std::vector<Tensor> evaluate(const ir::Fusion& fusion, const Arguments& args) {
    ir::ExpressionEvaluator evaluator;
    const Arguments bound = runtime::bindInputs(fusion, args, evaluator);
    return runtime::evaluateReference(fusion, bound, evaluator);
  }

  // Runs the pass at the sizes of `args`, and expects the reference's
  // outputs unchanged and no dead expr left reading a tensor.
  PassRecord rewriteKeepingValues(const Arguments& args) {
    const std::vector<Tensor> before = evaluate(*fusion_, args);
    ir::ExpressionEvaluator evaluator;
    runtime::bindInputs(*fusion_, args, evaluator);
    PassRecord record;
    refineReshapedReductions(*fusion_, evaluator, record);
    const std::vector<ir::Expr*> live = fusion_->exprsForOutputs();
    for (const auto& val : fusion_->vals()) {
      // Scalar exprs (extents) are not among the exprs the outputs need.
      if (val->as<ir::TensorView>() == nullptr) continue;
      for (const ir::Expr* use : val->uses()) {
        EXPECT_NE(std::find(live.begin(), live.end(), use), live.end())
            << val->name() << " is read by a dead expr: " << use->toString();
      }
    }
    const std::vector<Tensor> after = evaluate(*fusion_, args);
    EXPECT_EQ(before.size(), after.size());
    for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
      EXPECT_EQ(before[i].sizes(), after[i].sizes()) << "output " << i;
      const runtime::TensorCheck check = runtime::checkTensor(after[i], before[i], "output");
      EXPECT_TRUE(check.passed) << "output " << i << ": " << check.message;
    }
    return record;
  }

  // The welford's input as printed ("T3_l_float[...]"), to see its rank.
  // The printed fusion without its domains (which list dead tensors too).
  std::string kernelIr() const {
    const std::string printed = ir();
    return printed.substr(0, printed.find("\nDomains:"));
  }

  std::string welfordLine() const {
    const std::string printed = ir();
    const size_t at = printed.find("= welford(");
    if (at == std::string::npos) return {};
    return printed.substr(at, printed.find('\n', at) - at);
  }
};

TEST_F(RefineReshapedReductionsTest, GroupNormReducesOverTheChannelsOfItsGroupAndThePixels) {
  read(groupNorm(2, 12, 5, 7, 4));
  const PassRecord record = rewriteKeepingValues(inputs({{2, 12, 5, 7}, {12}, {12}}));
  ASSERT_EQ(record.rewrites.size(), 1u) << ir();
  EXPECT_NE(record.rewrites[0].find("from [2, 12, 5, 7] to [2, 4, 105] are computed over their "
                                    "common refinement [2, 4, 3, 5, 7]"),
            std::string::npos)
      << record.rewrites[0];
  // Over the three finer axes, not the merged one.
  EXPECT_NE(welfordLine().find("dims=[2, 3, 4]"), std::string::npos) << ir();
  // The weight is viewed as [groups, channels of a group], cut from the kernel.
  const std::string printed = ir();
  EXPECT_NE(printed.find("= reshape(T1, 4, "), std::string::npos) << printed;
  EXPECT_EQ(printed.find(", 4, 105)"), std::string::npos) << printed;
}

TEST_F(RefineReshapedReductionsTest, ABatchOfOneAndGroupsOfOneChannelKeepTheirValues) {
  read(groupNorm(1, 8, 3, 4, 8));
  const PassRecord record = rewriteKeepingValues(inputs({{1, 8, 3, 4}, {8}, {8}}));
  EXPECT_EQ(record.rewrites.size(), 1u) << ir();
  // Groups of two channels whose pixels are one odd row: the axis of extent 1
  // is an axis of the refinement of its own.
  read(groupNorm(3, 6, 1, 9, 3));
  const PassRecord rows = rewriteKeepingValues(inputs({{3, 6, 1, 9}, {6}, {6}}));
  ASSERT_EQ(rows.rewrites.size(), 1u) << ir();
  EXPECT_NE(rows.rewrites[0].find("common refinement [3, 3, 2, 1, 9]"), std::string::npos)
      << rows.rewrites[0];
}

TEST_F(RefineReshapedReductionsTest, ShapesWithoutACommonRefinementAreLeftAsTheyWere) {
  // 6 x 10 against 4 x 15: 4 does not divide 6, nor 6 the 4.
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[4, 15])
T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
)");
  const std::string before = kernelIr();
  Tensor x = Tensor::empty(ir::DataType::Float, {6, 10});
  runtime::fillNormal(x, 5, 1.0, 1.0);
  EXPECT_TRUE(rewriteKeepingValues({x}).rewrites.empty());
  EXPECT_EQ(kernelIr(), before);
}

TEST_F(RefineReshapedReductionsTest, AnOpWithoutAFormInTheRefinementLeavesTheFusionAsItWas) {
  // The statistics are permuted before their use: no rewrite, no leftovers.
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[4, 2, 15])
T2 = fd.ops.sum(T1, dims=[2], keepdim=False, dtype=DataType.Null)
T3 = fd.ops.permute(T2, dims=[1, 0])
fd.add_output(T3)
)");
  const std::string before = kernelIr();
  Tensor x = Tensor::empty(ir::DataType::Float, {4, 6, 5});
  runtime::fillNormal(x, 6, 1.0, 1.0);
  const PassRecord record = rewriteKeepingValues({x});
  ASSERT_EQ(record.rewrites.size(), 1u);
  // The record says which op kept the reshape.
  EXPECT_NE(record.rewrites[0].find(
                "kept T1 = reshape(T0): T3 = permute(...): has no form in the refinement"),
            std::string::npos)
      << record.rewrites[0];
  EXPECT_EQ(kernelIr(), before);
}

TEST_F(RefineReshapedReductionsTest, AReshapeKeepingTheInnermostExtentIsLeftToTheKernels) {
  // [2048, 1600] -> [16, 128, 1600] (seed 001's): the reduction kernels walk it.
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[4, 8, 12])
T2 = fd.ops.sum(T1, dims=[2], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
)");
  const std::string before = kernelIr();
  Tensor x = Tensor::empty(ir::DataType::Float, {32, 12});
  runtime::fillNormal(x, 7, 1.0, 1.0);
  EXPECT_TRUE(rewriteKeepingValues({x}).rewrites.empty());
  EXPECT_EQ(kernelIr(), before);
}

TEST_F(RefineReshapedReductionsTest, ASumOverAMergedTailKeepsItsValue) {
  // Not a norm: a plain sum whose rows a reshape merged from [C, H, W]
  // into [G, rest]; the result is viewed back to [N, G].
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[3, 2, 30])
T2 = fd.ops.sum(T1, dims=[2], keepdim=False, dtype=DataType.Null)
T3 = fd.ops.mul(T2, 0.5)
fd.add_output(T3)
)");
  Tensor x = Tensor::empty(ir::DataType::Float, {3, 4, 3, 5});
  runtime::fillNormal(x, 8, 1.0, 1.0);
  const PassRecord record = rewriteKeepingValues({x});
  ASSERT_EQ(record.rewrites.size(), 1u) << ir();
  EXPECT_NE(record.rewrites[0].find("common refinement [3, 2, 2, 3, 5]"), std::string::npos)
      << record.rewrites[0];
}

TEST_F(RefineReshapedReductionsTest, AGroupNormSplitIntoGroupsAndMergedBackIsRenamed) {
  // nvFuser's benchmark form: [N, C, H, W] -> [N, G, C/G, H, W] keeps the
  // innermost extent, but the reshape back to NCHW before the affine is what
  // split the kernel; it becomes a renaming.
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.reshape(T0, new_shape=[2, 3, 4, 6, 5])
T3, T4 = fd.ops.var_mean(T2, dims=[2, 3, 4], correction=0, keepdim=False)
T5 = fd.ops.broadcast_in_dim(T4, shape=[2, 3, 4, 6, 5], broadcast_dims=[0, 1])
T6 = fd.ops.broadcast_in_dim(fd.ops.rsqrt(fd.ops.add(T3, 1e-05)), shape=[2, 3, 4, 6, 5], broadcast_dims=[0, 1])
T7 = fd.ops.reshape(fd.ops.mul(fd.ops.sub(T2, T5), T6), new_shape=[2, 12, 6, 5])
T8 = fd.ops.mul(T7, fd.ops.broadcast_in_dim(T1, shape=[2, 12, 6, 5], broadcast_dims=[1]))
fd.add_output(T8)
)");
  Tensor x = Tensor::empty(ir::DataType::Float, {2, 12, 6, 5});
  Tensor w = Tensor::empty(ir::DataType::Float, {12});
  runtime::fillNormal(x, 9, 0.5, 2.0);
  runtime::fillNormal(w, 10, 1.0, 0.5);
  const PassRecord record = rewriteKeepingValues({x, w});
  ASSERT_EQ(record.rewrites.size(), 1u) << ir();
  EXPECT_NE(record.rewrites[0].find("common refinement [2, 3, 4, 6, 5]"), std::string::npos)
      << record.rewrites[0];
  EXPECT_EQ(kernelIr().find("= reshape(T6"), std::string::npos) << ir();
}

TEST_F(RefineReshapedReductionsTest, ARmsNormOverHeadsReshapedBackIsOneRefinement) {
  // QK-norm: [B, S, H * D] -> [B, S, H, D], RMSNorm over D with a weight
  // [D], back to [B, S, H * D].
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.ops.cast(fd.ops.reshape(T0, new_shape=[2, 3, 4, 8]), dtype=DataType.Float)
T3 = fd.ops.sum(fd.ops.mul(T2, T2), dims=[3], keepdim=True)
T4 = fd.ops.rsqrt(fd.ops.add(fd.ops.div(T3, 8.0), 1e-06))
T5 = fd.ops.broadcast_in_dim(T1, shape=[2, 3, 4, 8], broadcast_dims=[3])
T6 = fd.ops.mul(fd.ops.mul(T2, T4), fd.ops.cast(T5, dtype=DataType.Float))
T7 = fd.ops.reshape(fd.ops.cast(T6, dtype=DataType.BFloat16), new_shape=[2, 3, 32])
fd.add_output(T7)
)");
  const PassRecord record = rewriteKeepingValues(inputs({{2, 3, 32}, {8}}, ir::DataType::BFloat16));
  ASSERT_EQ(record.rewrites.size(), 1u) << ir();
  EXPECT_NE(record.rewrites[0].find("common refinement [2, 3, 4, 8]"), std::string::npos)
      << record.rewrites[0];
}

TEST_F(RefineReshapedReductionsTest, ALayerNormOverWholeAxesViewedBackIsLeftAsItWas) {
  // [2048, 1600] -> [16, 128, 1600], a LayerNorm over the 1600 and back
  // (the seed001_bookend_inputs example): every row is a whole axis of the
  // input, so the input's own kernels need no refinement (one kernel
  // either way; the rewrite only changed what the kernel keeps).
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(fd.ops.reshape(T0, new_shape=[4, 8, 12]), dtype=DataType.Float)
T2, T3 = fd.ops.var_mean(T1, dims=[2], correction=0, keepdim=True)
T4 = fd.ops.mul(fd.ops.sub(T1, T3), fd.ops.rsqrt(fd.ops.add(T2, 1e-05)))
T5 = fd.ops.reshape(fd.ops.cast(T4, dtype=DataType.BFloat16), new_shape=[32, 12])
fd.add_output(T5)
)");
  const std::string before = kernelIr();
  EXPECT_TRUE(rewriteKeepingValues(inputs({{32, 12}}, ir::DataType::BFloat16)).rewrites.empty());
  EXPECT_EQ(kernelIr(), before);
}

}  // namespace
}  // namespace fuserlab::passes::test
