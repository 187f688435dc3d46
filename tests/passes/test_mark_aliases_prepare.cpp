// mark_aliases_prepare, modelled on nvFuser's AliasTest: where bookending
// puts segment_sets (IR in, IR out), where it must not (DoNotOverSegment),
// and seed 001's reproducer. The segmenter is not involved: these tests
// check the IR the pass produces.
#include <gtest/gtest.h>

#include "core/passes/mark_aliases_prepare.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

using ir::ExprType;
using ir::TensorView;

class MarkAliasesPrepareTest : public PassFixture {
 protected:
  PassRecord bookend(BookendMode mode) {
    PassOptions options;
    options.bookend = mode;
    return run(MarkAliasesPreparePass(), options);
  }

  // Runs the pass in `mode` and expects it to change nothing.
  void expectUnchanged(BookendMode mode) {
    const std::string before = ir();
    const PassRecord record = bookend(mode);
    EXPECT_TRUE(record.rewrites.empty()) << toString(mode) << ": " << record.rewrites.front();
    EXPECT_EQ(ir(), before) << toString(mode);
  }

  int segmentSetCount() const {
    int count = 0;
    for (const ir::Expr* expr : fusion_->exprsForOutputs()) {
      count += expr->type() == ExprType::SegmentSet;
    }
    return count;
  }

  PassRecord reread(std::string_view body, BookendMode mode) {
    read(body);
    return bookend(mode);
  }
};

// in -> permute -> out0, and in -> mul -> add -> out1: the permute is a view
// of the input that no kernel needs.
constexpr std::string_view kInputsAndOutputs = R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.mul(T0, T0)
T3 = fd.ops.add(T2, T0)
fd.add_output(T1)
fd.add_output(T3)
)";

TEST_F(MarkAliasesPrepareTest, Bookend_InputsAndOutputs) {
  // The segment_set goes between the input and the permute, so the kernel
  // computing T3 does not also produce T1. Bookending the inputs adds
  // nothing: no meta op precedes the compute.
  for (BookendMode mode : {BookendMode::Outputs, BookendMode::InputsAndOutputs}) {
    SCOPED_TRACE(toString(mode));
    const PassRecord record = reread(kInputsAndOutputs, mode);
    ASSERT_EQ(record.rewrites.size(), 1u);
    EXPECT_EQ(record.rewrites[0],
              "inserted segment_set T4 = segment_set(T0) before the output "
              "meta ops permute(T0) (bookend outputs)");
    expectIr(R"IR(Inputs:
  T0_g_float[iS0{2}, iS1{3}], contiguity [True, True]
Outputs:
  T1_g_float[iS2{3}, iS3{2}]
  T3_g_float[iS6{2}, iS7{3}]

%kernel {
T2_l_float[iS4{2}, iS5{3}]
   = mul(T0, T0)
T3_g_float[iS6{2}, iS7{3}]
   = add(T2, T0)
T4_l_float[iS8{2}, iS9{3}]
   = segment_set(T0)
T1_g_float[iS2{3}, iS3{2}]
   = permute(T4, dims=[1, 0])
}
)IR");
  }
}

// meta_op_chain's shape: an input sliced, reshaped and permuted is both an
// output and the compute's operand. In both modes (by default since session
// 21: an output whose root is an input is returned as that view, as
// nvFuser's alias analysis has it, not written by the kernel) the chain's
// end T3 is handed from its kernel-free segment to the segment_set's as a
// view of the input, so it is declared as that view is laid out: the
// permuted order, and the slice's gap (not contiguous) on the outer axis;
// the segment_set's copy the same. Before, T3 kept the dense layout a
// computed tensor has, the segmenter made the copy a kernel, and the GPU
// run refused to bind the view to it as "declared contiguous".
TEST_F(MarkAliasesPrepareTest, InputChainThatIsAlsoAnOutputIsDeclaredAsItsView) {
  for (BookendMode mode : {BookendMode::InputsAndOutputs, BookendMode::Outputs}) {
    SCOPED_TRACE(toString(mode));
    const PassRecord record = reread(R"(
T0 = fd.define_tensor(shape=[4, 12], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.slice(T0, start_indices=[0, 4], end_indices=[4, 8], strides=[1, 1])
T2 = fd.ops.reshape(T1, new_shape=[4, 2, 2])
T3 = fd.ops.permute(T2, dims=[1, 0, 2])
T4 = fd.ops.mul(T3, T3)
fd.add_output(T3)
fd.add_output(T4)
)",
                                     mode);
    ASSERT_EQ(record.rewrites.size(), 1u) << ir();
    EXPECT_NE(record.rewrites[0].find("after the input meta ops slice(T0) -> reshape(T1) -> "
                                      "permute(T2), before mul"),
              std::string::npos)
        << record.rewrites[0];
    const std::string text = ir();
    // Both T3 and its copy: axes (2, 4, 2) allocated as (4, 2, 2), the 4 not
    // contiguous with the rest (a row of the input is 12 wide, the slice 4).
    size_t found = 0;
    for (size_t at = text.find("contiguity: [False, True, True]"); at != std::string::npos;
         at = text.find("contiguity: [False, True, True]", at + 1)) {
      ++found;
    }
    EXPECT_EQ(found, 2u) << text;
  }
}

// in -> permute -> mul -> reshape -> out.
constexpr std::string_view kIntermediate = R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.mul(T1, T1)
T3 = fd.ops.reshape(T2, new_shape=[6])
fd.add_output(T3)
)";

TEST_F(MarkAliasesPrepareTest, Bookend_IntermediateTensors) {
  PassRecord record = reread(kIntermediate, BookendMode::Outputs);
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T4 = segment_set(T2) before the output meta "
            "ops reshape(T2) (bookend outputs)");
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{2}, iS1{3}], contiguity [True, True]
Outputs:
  T3_g_float[iS8{6}]

%kernel {
T1_l_float[iS2{3}, iS3{2}]
   = permute(T0, dims=[1, 0])
T2_l_float[iS4{3}, iS5{2}]
   = mul(T1, T1)
T4_l_float[iS9{3}, iS10{2}]
   = segment_set(T2)
T3_g_float[iS8{6}]
   = reshape(T4, 6)
}

Domains:
  T3_g_float[iS8{6}]
    root: [iS6{3}, iS7{2}]
    logical: [iS8{6}]
    contiguity: [True]
)IR");

  // The chain's end T1 is handed to the segment_set's segment as a view of
  // the input: declared permuted, as the copy T4 is.
  record = reread(kIntermediate, BookendMode::InputsAndOutputs);
  ASSERT_EQ(record.rewrites.size(), 2u);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T4 = segment_set(T1) after the input meta "
            "ops permute(T0), before mul(T1, T1) (bookend inputs)");
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{2}, iS1{3}], contiguity [True, True]
Outputs:
  T3_g_float[iS8{6}]

%kernel {
T1_l_float[iS2{3}, iS3{2}]
   = permute(T0, dims=[1, 0])
T4_l_float[iS9{3}, iS10{2}]
   = segment_set(T1)
T2_l_float[iS4{3}, iS5{2}]
   = mul(T4, T4)
T5_l_float[iS11{3}, iS12{2}]
   = segment_set(T2)
T3_g_float[iS8{6}]
   = reshape(T5, 6)
}

Domains:
  T1_l_float[iS2{3}, iS3{2}]
    logical: [iS2{3}, iS3{2}]
    allocation: [iS3{2}, iS2{3}]
    contiguity: [True, True]
  T3_g_float[iS8{6}]
    root: [iS6{3}, iS7{2}]
    logical: [iS8{6}]
    contiguity: [True]
  T4_l_float[iS9{3}, iS10{2}]
    logical: [iS9{3}, iS10{2}]
    allocation: [iS10{2}, iS9{3}]
    contiguity: [True, True]
)IR");
}

TEST_F(MarkAliasesPrepareTest, BookendNoneChangesNothing) {
  read(kIntermediate);
  expectUnchanged(BookendMode::None);
}

// nvFuser's DoNotOverSegment_Straightline: the permute between two compute
// ops feeds a kernel anyway; cutting before it would only add a segment.
TEST_F(MarkAliasesPrepareTest, DoNotOverSegment_Straightline) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.add(T0, T0)
T2 = fd.ops.permute(T1, dims=[1, 0])
T3 = fd.ops.mul(T2, T2)
fd.add_output(T1)
fd.add_output(T2)
fd.add_output(T3)
)");
  expectUnchanged(BookendMode::Outputs);
  expectUnchanged(BookendMode::InputsAndOutputs);
}

// A straight line of meta ops, compute, meta ops: one cut on each side, not
// one per meta op.
TEST_F(MarkAliasesPrepareTest, StraightLineGetsOneCutPerSide) {
  read(R"(
T0 = fd.define_tensor(shape=[4, 6], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[2, 2, 6])
T2 = fd.ops.permute(T1, dims=[1, 0, 2])
T3 = fd.ops.relu(T2)
T4 = fd.ops.exp(T3)
T5 = fd.ops.reshape(T4, new_shape=[2, 12])
T6 = fd.ops.permute(T5, dims=[1, 0])
fd.add_output(T6)
)");
  const PassRecord record = bookend(BookendMode::InputsAndOutputs);
  ASSERT_EQ(record.rewrites.size(), 2u);
  EXPECT_EQ(segmentSetCount(), 2);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T7 = segment_set(T2) after the input meta "
            "ops reshape(T0) -> permute(T1), before relu(T2) (bookend inputs)");
  EXPECT_EQ(record.rewrites[1],
            "inserted segment_set T8 = segment_set(T4) before the output meta "
            "ops reshape(T4) (bookend outputs)");
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{4}, iS1{6}], contiguity [True, True]
Outputs:
  T6_g_float[iS21{12}, iS22{2}]

%kernel {
T1_l_float[iS4{2}, iS5{2}, iS6{6}]
   = reshape(T0, 2, 2, 6)
T2_l_float[iS7{2}, iS8{2}, iS9{6}]
   = permute(T1, dims=[1, 0, 2])
T7_l_float[iS23{2}, iS24{2}, iS25{6}]
   = segment_set(T2)
T3_l_float[iS10{2}, iS11{2}, iS12{6}]
   = relu(T7)
T4_l_float[iS13{2}, iS14{2}, iS15{6}]
   = exp(T3)
T8_l_float[iS26{2}, iS27{2}, iS28{6}]
   = segment_set(T4)
T5_l_float[iS19{2}, iS20{12}]
   = reshape(T8, 2, 12)
T6_g_float[iS21{12}, iS22{2}]
   = permute(T5, dims=[1, 0])
}

Domains:
  T1_l_float[iS4{2}, iS5{2}, iS6{6}]
    root: [iS2{4}, iS3{6}]
    logical: [iS4{2}, iS5{2}, iS6{6}]
    contiguity: [True, True, True]
  T2_l_float[iS7{2}, iS8{2}, iS9{6}]
    logical: [iS7{2}, iS8{2}, iS9{6}]
    allocation: [iS8{2}, iS7{2}, iS9{6}]
    contiguity: [True, True, True]
  T5_l_float[iS19{2}, iS20{12}]
    root: [iS16{2}, iS17{2}, iS18{6}]
    logical: [iS19{2}, iS20{12}]
    contiguity: [True, True]
  T7_l_float[iS23{2}, iS24{2}, iS25{6}]
    logical: [iS23{2}, iS24{2}, iS25{6}]
    allocation: [iS24{2}, iS23{2}, iS25{6}]
    contiguity: [True, True, True]
)IR");
}

// The brief's fork: in -> [meta 0] -> out0 and in -> [meta 1] -> out1 is
// kernel-free as it is; no segment_set at all.
TEST_F(MarkAliasesPrepareTest, DoNotOverSegment_WithForks) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.reshape(T0, new_shape=[6])
fd.add_output(T1)
fd.add_output(T2)
)");
  expectUnchanged(BookendMode::Outputs);
  expectUnchanged(BookendMode::InputsAndOutputs);
}

// nvFuser's DoNotOverSegment_WithForks: t0 = in + in feeds a permute (an
// output) and a reshape whose result feeds both an output reshape and a mul.
// Only the meta ops that feed nothing but outputs are cut off; the reshape
// feeding the mul stays in the kernel.
TEST_F(MarkAliasesPrepareTest, DoNotOverSegment_ComputeForks) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.add(T0, T0)
T2 = fd.ops.permute(T1, dims=[1, 0])
T3 = fd.ops.reshape(T1, new_shape=[6])
T4 = fd.ops.reshape(T3, new_shape=[3, 2])
T5 = fd.ops.mul(T3, T3)
fd.add_output(T2)
fd.add_output(T4)
fd.add_output(T5)
)");
  const PassRecord record = bookend(BookendMode::Outputs);
  ASSERT_EQ(record.rewrites.size(), 2u);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T6 = segment_set(T1) before the output meta "
            "ops permute(T1) (bookend outputs)");
  EXPECT_EQ(record.rewrites[1],
            "inserted segment_set T7 = segment_set(T3) before the output meta "
            "ops reshape(T3) (bookend outputs)");
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{2}, iS1{3}], contiguity [True, True]
Outputs:
  T2_g_float[iS4{3}, iS5{2}]
  T4_g_float[iS10{3}, iS11{2}]
  T5_g_float[iS12{6}]

%kernel {
T1_l_float[iS2{2}, iS3{3}]
   = add(T0, T0)
T3_l_float[iS8{6}]
   = reshape(T1, 6)
T5_g_float[iS12{6}]
   = mul(T3, T3)
T6_l_float[iS13{2}, iS14{3}]
   = segment_set(T1)
T2_g_float[iS4{3}, iS5{2}]
   = permute(T6, dims=[1, 0])
T7_l_float[iS15{6}]
   = segment_set(T3)
T4_g_float[iS10{3}, iS11{2}]
   = reshape(T7, 3, 2)
}

Domains:
  T3_l_float[iS8{6}]
    root: [iS6{2}, iS7{3}]
    logical: [iS8{6}]
    contiguity: [True]
  T4_g_float[iS10{3}, iS11{2}]
    root: [iS9{6}]
    logical: [iS10{3}, iS11{2}]
    contiguity: [True, True]
)IR");
}

// Seed 001's review: in -> reshape_0 -> mul and in -> reshape_1 -> mul.
// Bookending the reshapes would hand the kernel the same input twice.
TEST_F(MarkAliasesPrepareTest, DoNotBookendForkIntoOneCompute) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 6], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[12])
T2 = fd.ops.reshape(T0, new_shape=[3, 4])
T3 = fd.ops.reshape(T2, new_shape=[12])
T4 = fd.ops.mul(T1, T3)
fd.add_output(T4)
)");
  expectUnchanged(BookendMode::InputsAndOutputs);
}

// Slices of one input do not overlap, so each is bookended on its own (the
// RoPE split).
TEST_F(MarkAliasesPrepareTest, SlicesOfOneInputAreBookendedSeparately) {
  read(R"(
T0 = fd.define_tensor(shape=[4, 6], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.slice(T0, start_indices=[0, 0], end_indices=[4, 3], strides=[1, 1])
T2 = fd.ops.slice(T0, start_indices=[0, 3], end_indices=[4, 6], strides=[1, 1])
T3 = fd.ops.mul(T1, T2)
fd.add_output(T3)
)");
  const PassRecord record = bookend(BookendMode::InputsAndOutputs);
  ASSERT_EQ(record.rewrites.size(), 2u);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T4 = segment_set(T1) after the input meta "
            "ops slice(T0), before mul(T1, T2) (bookend inputs)");
  EXPECT_EQ(record.rewrites[1],
            "inserted segment_set T5 = segment_set(T2) after the input meta "
            "ops slice(T0), before mul(T4, T2) (bookend inputs)");
  // The copies alias strided views of T0: rows 6 elements apart, 3 used.
  for (const ir::Expr* expr : fusion_->exprsForOutputs()) {
    if (expr->type() != ExprType::SegmentSet) continue;
    EXPECT_EQ(expr->output(0)->as<TensorView>()->contiguity(),
              (std::vector<std::optional<bool>>{false, true}));
  }
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{4}, iS1{6}], contiguity [True, True]
Outputs:
  T3_g_float[iS6{4}, iS7{3}]

%kernel {
T1_l_float[iS2{4}, iS3{3}]
   = slice(T0, 0, 4, 1, 0, 3, 1)
T2_l_float[iS4{4}, iS5{3}]
   = slice(T0, 0, 4, 1, 3, 6, 1)
T4_l_float[iS8{4}, iS9{3}]
   = segment_set(T1)
T5_l_float[iS10{4}, iS11{3}]
   = segment_set(T2)
T3_g_float[iS6{4}, iS7{3}]
   = mul(T4, T5)
}
)IR");
}

// nvFuser's AliasTest.View: a reshape of an input, nothing else. There is no
// kernel to separate it from.
TEST_F(MarkAliasesPrepareTest, View) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 3, 4], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.reshape(T0, new_shape=[2, 12])
fd.add_output(T1)
)");
  expectUnchanged(BookendMode::Outputs);
  expectUnchanged(BookendMode::InputsAndOutputs);
}

// A chain of meta ops only (squeeze, slice, reshape that splits the sliced
// axis, permute) is one view: nothing to cut.
TEST_F(MarkAliasesPrepareTest, MetaOnlyFusionIsLeftAlone) {
  read(R"(
T0 = fd.define_tensor(shape=[1, 512, 3072], contiguity=[None, True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.squeeze(T0, dims=[0])
T2 = fd.ops.slice(T1, start_indices=[0, 1024], end_indices=[512, 2048], strides=[1, 1])
T3 = fd.ops.reshape(T2, new_shape=[512, 16, 64])
T4 = fd.ops.permute(T3, dims=[1, 0, 2])
fd.add_output(T4)
)");
  expectUnchanged(BookendMode::Outputs);
  expectUnchanged(BookendMode::InputsAndOutputs);
}

// Merging a sliced axis with the one outside it cannot be a view: that
// reshape is compute, and bookending from the input stops before it.
TEST_F(MarkAliasesPrepareTest, ReshapeAcrossASliceGapIsCompute) {
  read(R"(
T0 = fd.define_tensor(shape=[4, 6], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.slice(T0, start_indices=[0, 0], end_indices=[4, 2], strides=[1, 1])
T2 = fd.ops.reshape(T1, new_shape=[8])
fd.add_output(T2)
)");
  expectUnchanged(BookendMode::Outputs);
  const PassRecord record = bookend(BookendMode::InputsAndOutputs);
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T3 = segment_set(T1) after the input meta "
            "ops slice(T0), before reshape(T1) (bookend inputs)");
}

// nvFuser's Bookend_SegmentSetPreservesAllocation: the segment_set copy of a
// column-major input is declared column-major too, so it still aliases it.
TEST_F(MarkAliasesPrepareTest, SegmentSetPreservesAllocation) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
T1 = fd.ops.permute(T0, dims=[1, 0])
T2 = fd.ops.mul(T0, T0)
fd.add_output(T1)
fd.add_output(T2)
)");
  const PassRecord record = bookend(BookendMode::Outputs);
  ASSERT_EQ(record.rewrites.size(), 1u);
  expectIr(R"IR(Inputs:
  T0_g_float[iS0{2}, iS1{3}], allocation [iS1{3}, iS0{2}], contiguity [True, True]
Outputs:
  T1_g_float[iS2{3}, iS3{2}]
  T2_g_float[iS4{2}, iS5{3}]

%kernel {
T2_g_float[iS4{2}, iS5{3}]
   = mul(T0, T0)
T3_l_float[iS6{2}, iS7{3}]
   = segment_set(T0)
T1_g_float[iS2{3}, iS3{2}]
   = permute(T3, dims=[1, 0])
}

Domains:
  T0_g_float[iS0{2}, iS1{3}]
    logical: [iS0{2}, iS1{3}]
    allocation: [iS1{3}, iS0{2}]
    contiguity: [True, True]
  T3_l_float[iS6{2}, iS7{3}]
    logical: [iS6{2}, iS7{3}]
    allocation: [iS7{3}, iS6{2}]
    contiguity: [True, True]
)IR");
}

// nvFuser's AliasInSegment: the user already separated the permute.
TEST_F(MarkAliasesPrepareTest, ExistingSegmentSetIsNotDuplicated) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.add(T0, T0)
T2 = fd.ops.segment_set(T0)
T3 = fd.ops.permute(T2, dims=[1, 0])
fd.add_output(T1)
fd.add_output(T3)
)");
  expectUnchanged(BookendMode::Outputs);
  expectUnchanged(BookendMode::InputsAndOutputs);
}

// Outputs that view one computed tensor share one segment_set (nvFuser's
// Bookend_AliasesOfSameTensor).
TEST_F(MarkAliasesPrepareTest, AliasesOfOneTensorShareOneSegmentSet) {
  read(R"(
T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.add(T0, T0)
T2 = fd.ops.reshape(T1, new_shape=[6])
T3 = fd.ops.reshape(T1, new_shape=[3, 2])
T4 = fd.ops.permute(T1, dims=[1, 0])
fd.add_output(T2)
fd.add_output(T3)
fd.add_output(T4)
)");
  const PassRecord record = bookend(BookendMode::Outputs);
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T5 = segment_set(T1) before the output meta "
            "ops reshape(T1), reshape(T1), permute(T1) (bookend outputs)");
  EXPECT_EQ(segmentSetCount(), 1);
}

// A reduction's result (its reduced axes dropped by the copy) is cut from
// the reshape that only feeds the output.
TEST_F(MarkAliasesPrepareTest, ReductionResultIsCutBeforeOutputMetaOps) {
  read(R"(
T0 = fd.define_tensor(shape=[4, 6], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
T2 = fd.ops.reshape(T1, new_shape=[2, 2])
fd.add_output(T2)
)");
  const PassRecord record = bookend(BookendMode::Outputs);
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T3 = segment_set(T1) before the output meta "
            "ops reshape(T1) (bookend outputs)");
  const auto* copy = tensor("T2")->definition()->input(0)->as<TensorView>();
  EXPECT_EQ(copy->logical().size(), 1u);
}

// Running the pass again finds its own segment_sets and adds none.
TEST_F(MarkAliasesPrepareTest, SecondRunAddsNothing) {
  for (BookendMode mode : {BookendMode::Outputs, BookendMode::InputsAndOutputs}) {
    readFile("resources/examples/seed001_bookend_inputs.py");
    EXPECT_FALSE(bookend(mode).rewrites.empty()) << toString(mode);
    expectUnchanged(mode);
  }
}

// Seed 001's reproducer: the output is a cast, so bookending the outputs
// changes nothing; bookending the inputs cuts the weight and bias
// broadcast_in_dim chains after the expand, so the kernel's inputs keep the
// expanded [1 ex 16, 1 ex 128, 1600] shape with a contiguous inner axis.
TEST_F(MarkAliasesPrepareTest, Seed001NanoGptLayerNorm) {
  readFile("resources/examples/seed001_nanogpt_layer_norm.py");
  expectUnchanged(BookendMode::Outputs);

  const PassRecord record = bookend(BookendMode::InputsAndOutputs);
  ASSERT_EQ(record.rewrites.size(), 2u);
  EXPECT_EQ(record.rewrites[0],
            "inserted segment_set T25 = segment_set(T17) after the input meta "
            "ops broadcast(T1) -> expand(T16), before cast(T17) (bookend "
            "inputs)");
  EXPECT_EQ(record.rewrites[1],
            "inserted segment_set T26 = segment_set(T21) after the input meta "
            "ops broadcast(T2) -> expand(T20), before cast(T21) (bookend "
            "inputs)");
  // The casts of the weight and bias (script T36 and T43) read the copies,
  // which keep the expanded extents and a contiguous inner axis.
  for (const char* cast : {"T36", "T43"}) {
    SCOPED_TRACE(cast);
    const TensorView* castOut = tensor(cast);
    ASSERT_NE(castOut, nullptr);
    const auto* copy = castOut->definition()->input(0)->as<TensorView>();
    ASSERT_EQ(copy->definition()->type(), ExprType::SegmentSet);
    const auto axes = copy->logical();
    ASSERT_EQ(axes.size(), 3u);
    EXPECT_EQ(axes[0]->extentForIteration()->constInt(), 16);
    EXPECT_EQ(axes[1]->extentForIteration()->constInt(), 128);
    EXPECT_TRUE(axes[0]->isBroadcast() && axes[1]->isBroadcast());
    EXPECT_FALSE(copy->domain().hasAllocation());
    EXPECT_EQ(copy->contiguity().back(), true);
  }
  expectIr(R"IR(Inputs:
  T0_g___bfloat[iS0{i0}, iS1{i1}, iS2{i2}], contiguity [True, True, True]
  T1_g___bfloat[iS3{i3}], contiguity [True]
  T2_g___bfloat[iS4{i4}], contiguity [True]
Outputs:
  T24_g___bfloat[iS67{i0}, iS68{i1}, iS69{i2}]

%kernel {
T3_l_float[iS5{i0}, iS6{i1}, iS7{i2}]
   = cast(T0, dtype=Float)
T4_l_float[iS8{i0}, iS9{i1}, rS10{i2}], T5_l_float[iS11{i0}, iS12{i1}, rS13{i2}], T6_l_int64_t[iS14{i0}, iS15{i1}, rS16{i2}]
   = welford(T3, dims=[2])
T7_l_float[iS17{i0}, iS18{i1}]
   = div(T5, i2)
T8_l_float[iS19{i0}, iS20{i1}, bS21{1}]
   = broadcast(T7, is_broadcast_dim=[False, False, True])
T9_l_float[iS22{i0}, iS23{i1}, bS24{1}]
   = broadcast(T4, is_broadcast_dim=[False, False, True])
T10_l_float[iS25{i0}, iS26{i1}, bS27{1}]
   = add(T8, 1e-05)
T11_l_float[iS28{i0}, iS29{i1}, bS30{1}]
   = rsqrt(T10)
T12_l_float[iS31{i0}, iS32{i1}, bS33{1 ex 1600}]
   = expand(T9, -1, -1, 1600)
T13_l_float[iS34{i0}, iS35{i1}, iS36{i2}]
   = sub(T3, T12)
T14_l_float[iS37{i0}, iS38{i1}, bS39{1 ex 1600}]
   = expand(T11, -1, -1, 1600)
T15_l_float[iS40{i0}, iS41{i1}, iS42{i2}]
   = mul(T13, T14)
T16_l___bfloat[bS43{1}, bS44{1}, iS45{i3}]
   = broadcast(T1, is_broadcast_dim=[True, True, False])
T17_l___bfloat[bS46{1 ex 16}, bS47{1 ex 128}, iS48{i3}]
   = expand(T16, 16, 128, -1)
T20_l___bfloat[bS55{1}, bS56{1}, iS57{i4}]
   = broadcast(T2, is_broadcast_dim=[True, True, False])
T21_l___bfloat[bS58{1 ex 16}, bS59{1 ex 128}, iS60{i4}]
   = expand(T20, 16, 128, -1)
T25_l___bfloat[bS70{1 ex 16}, bS71{1 ex 128}, iS72{i3}]
   = segment_set(T17)
T18_l_float[bS49{1 ex 16}, bS50{1 ex 128}, iS51{i3}]
   = cast(T25, dtype=Float)
T19_l_float[iS52{i0}, iS53{i1}, iS54{i2}]
   = mul(T15, T18)
T26_l___bfloat[bS73{1 ex 16}, bS74{1 ex 128}, iS75{i4}]
   = segment_set(T21)
T22_l_float[bS61{1 ex 16}, bS62{1 ex 128}, iS63{i4}]
   = cast(T26, dtype=Float)
T23_l_float[iS64{i0}, iS65{i1}, iS66{i2}]
   = add(T19, T22)
T24_g___bfloat[iS67{i0}, iS68{i1}, iS69{i2}]
   = cast(T23, dtype=BFloat16)
}
)IR");
}

}  // namespace
}  // namespace fuserlab::passes::test
