// The vectorized pointwise pass through slice, cat and pad on the vector
// axis (vector_lanes.h): a cat whose boundaries and slice starts are
// multiples of the vector width is decided once per vector and reads each
// input as one vector; an unaligned one stays per lane; the index algebra
// folds constants and cancels terms.
#include <string>

#include "core/codegen/codegen.h"
#include "core/codegen/vector_lanes.h"
#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

// The vectorized pass of a pointwise kernel: from `if (vector_ok)` to the
// element pass, whose chunk position is the first to add the lane j.
std::string vectorPass(const std::string& source) {
  const size_t begin = source.find("if (vector_ok) {");
  const size_t end = source.find("kVector + j;", begin);
  EXPECT_NE(begin, std::string::npos) << source;
  EXPECT_NE(end, std::string::npos) << source;
  return source.substr(begin, end - begin);
}

// The kernel's vector_ok condition.
std::string vectorCondition(const std::string& source) {
  const size_t begin = source.find("const bool vector_ok = ");
  const size_t end = source.find(";\n", begin);
  EXPECT_NE(begin, std::string::npos) << source;
  return source.substr(begin, end - begin);
}

void expectCompiles(const GeneratedKernel& kernel) {
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << kernel.source;
  }
}

// Rotary embedding with the rotated half taken from slices of q: as
// tests/perf/suite/rope_4x32x2048x128.py, at a small size.
std::string rope(int half, int head) {
  const std::string h = std::to_string(half);
  const std::string d = std::to_string(head);
  return R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T3 = fd.ops.slice(T0, start_indices=[0, 0, 0, 0], end_indices=[2, 4, 16, )" +
         h + R"(], strides=[1, 1, 1, 1])
    T4 = fd.ops.slice(T0, start_indices=[0, 0, 0, )" +
         h + "], end_indices=[2, 4, 16, " + d + R"(], strides=[1, 1, 1, 1])
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.neg(T5)
    T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)
    T8 = fd.ops.cat([T7, T3], dim=3)
    T9 = fd.ops.broadcast_in_dim(T1, shape=[2, 4, 16, )" +
         d + R"(], broadcast_dims=[2, 3])
    T10 = fd.ops.cast(T0, dtype=DataType.Float)
    T11 = fd.ops.cast(T9, dtype=DataType.Float)
    T12 = fd.ops.mul(T10, T11)
    T13 = fd.ops.broadcast_in_dim(T2, shape=[2, 4, 16, )" +
         d + R"(], broadcast_dims=[2, 3])
    T14 = fd.ops.cast(T8, dtype=DataType.Float)
    T15 = fd.ops.cast(T13, dtype=DataType.Float)
    T16 = fd.ops.mul(T14, T15)
    T17 = fd.ops.add(T12, T16)
    T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)
    fd.add_output(T18)
)";
}

std::string ropeInputs(int head) {
  const std::string d = std::to_string(head);
  return "2x4x16x" + d + ":bf16,16x" + d + ":bf16,16x" + d + ":bf16";
}

TEST(VectorLanesTest, RopeCatReadsEachHalfAsOneVector) {
  const CompiledScript compiled = compileScript(rope(64, 128), ropeInputs(128));
  const GeneratedKernel& kernel = onlyKernel(compiled);
  ASSERT_TRUE(contains(kernel.source, "constexpr int kVector = 8;")) << kernel.source;
  const std::string pass = vectorPass(kernel.source);
  // q itself, its second half (for the first half of the output) and its
  // first half (for the second): three vector loads, the halves only where
  // their branch is taken, and no element of q read on its own.
  EXPECT_EQ(count(pass, "= fl::load_vector<kVector>(T0.data + ("), 3) << pass;
  EXPECT_TRUE(contains(pass, "if (a3 < 64) T0_vec1[u] = fl::load_vector<kVector>(")) << pass;
  EXPECT_TRUE(contains(pass, "if (a3 >= 64) T0_vec2[u] = fl::load_vector<kVector>(")) << pass;
  EXPECT_FALSE(contains(pass, "T0.data[")) << pass;
  // The cat is decided once per vector, on its base index, and the index
  // arithmetic is index_t: no per-lane branch, no slice_bound per element.
  EXPECT_TRUE(contains(pass, "if (a3 < 64) {")) << pass;
  EXPECT_FALSE(contains(pass, "lane_a3 <")) << pass;
  EXPECT_FALSE(contains(pass, "slice_bound")) << pass;
  EXPECT_FALSE(contains(pass, "int64_t")) << pass;
  // The clamped slice start is computed once per kernel and checked with
  // the other vector conditions.
  EXPECT_TRUE(contains(kernel.source, "const index_t slice_start0 = (index_t)fl::slice_bound("))
      << kernel.source;
  EXPECT_TRUE(contains(vectorCondition(kernel.source), "(slice_start0) % kVector == 0"))
      << kernel.source;
  expectCompiles(kernel);
}

TEST(VectorLanesTest, UnalignedCatBoundaryStaysPerLane) {
  // Halves of 60 and 68: a vector may straddle the boundary, so each lane
  // picks its own branch (and reads its element alone).
  const CompiledScript compiled = compileScript(rope(60, 128), ropeInputs(128));
  const GeneratedKernel& kernel = onlyKernel(compiled);
  const std::string pass = vectorPass(kernel.source);
  EXPECT_TRUE(contains(pass, "if (lane_a3 < 68) {")) << pass;
  EXPECT_EQ(count(pass, "= fl::load_vector<kVector>(T0.data + ("), 1) << pass;
  EXPECT_TRUE(contains(pass, "T0.data[")) << pass;
  expectCompiles(kernel);
}

TEST(VectorLanesTest, PadOnTheVectorAxisIsDecidedOncePerVector) {
  const CompiledScript compiled = compileScript(R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T2 = fd.ops.pad(T0, [8, 16, 0, 0], None)
    T3 = fd.ops.add(T2, T1)
    fd.add_output(T3)
)",
                                                "64x40:bf16,64x64:bf16");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  ASSERT_TRUE(contains(kernel.source, "constexpr int kVector = 8;")) << kernel.source;
  const std::string pass = vectorPass(kernel.source);
  // The input's vector is read only where the whole vector is inside it;
  // its extent (known at run time) is checked with the vector conditions.
  EXPECT_FALSE(contains(pass, "(lane_a1 - 8) >= 0")) << pass;
  EXPECT_TRUE(contains(pass,
                       "(a1 - 8) >= 0 && (a1 - 8) < ((index_t)((int64_t)T0.size[1]))) "
                       "T0_vec[u] = fl::load_vector<kVector>("))
      << pass;
  EXPECT_FALSE(contains(pass, "T0.data[")) << pass;
  EXPECT_TRUE(contains(vectorCondition(kernel.source),
                       "&& ((index_t)((int64_t)T0.size[1])) % kVector == 0"))
      << kernel.source;
  expectCompiles(kernel);
}

TEST(VectorLanesTest, BranchOnAnOuterAxisKeepsVectorsInARow) {
  // A cat of rows: the branch is on the row, the same for every lane of a
  // vector inside one row, so each input is read as vectors under it, and
  // vectors may no longer cross rows (no "as generated" alternative).
  const CompiledScript compiled = compileScript(R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T2 = fd.ops.cat([T0, T1], dim=0)
    T3 = fd.ops.sigmoid(T2)
    fd.add_output(T3)
)",
                                                "37x256:f32,91x256:f32");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  const std::string pass = vectorPass(kernel.source);
  EXPECT_TRUE(contains(pass,
                       "if (a0 < ((index_t)((int64_t)T0.size[0]))) T0_vec[u] = "
                       "fl::load_vector<kVector>("))
      << pass;
  EXPECT_TRUE(contains(pass,
                       "if (a0 >= ((index_t)((int64_t)T0.size[0]))) T1_vec[u] = "
                       "fl::load_vector<kVector>("))
      << pass;
  EXPECT_FALSE(contains(pass, ".data[")) << pass;
  EXPECT_FALSE(contains(vectorCondition(kernel.source), "||")) << kernel.source;
  expectCompiles(kernel);
}

TEST(VectorLanesTest, IndexSumsFoldAndCancel) {
  const IndexSum start = IndexSum::term("slice_start0");
  EXPECT_EQ((IndexSum::of(64) - IndexSum::of(64)).addedTo("lane_a3"), "lane_a3");
  EXPECT_EQ(IndexSum::of(-64).addedTo("lane_a3"), "(lane_a3 - 64)");
  EXPECT_EQ((start - IndexSum::of(8)).addedTo("a3"), "(a3 + slice_start0 - 8)");
  EXPECT_TRUE((start + IndexSum::of(8) - start - IndexSum::of(8)).isZero());
  EXPECT_EQ(IndexSum::of(-4).text(), "(-4)");

  VectorLanes lanes("lane_a3", "a3", 8);
  const std::string shifted = lanes.shifted(start - IndexSum::of(64));
  EXPECT_EQ(shifted, "(lane_a3 + slice_start0 - 64)");
  EXPECT_EQ(lanes.baseOf(shifted), "(a3 + slice_start0 - 64)");
  EXPECT_EQ(lanes.shiftOf("a2"), nullptr);
  EXPECT_TRUE(lanes.laneFree("a2 + lanes_a3"));
  EXPECT_FALSE(lanes.laneFree("(lane_a3 - 8)"));
  // Constants are checked now; terms become run-time requirements.
  EXPECT_FALSE(lanes.requireAligned({IndexSum::of(60), start}));
  EXPECT_TRUE(lanes.requirements().empty());
  EXPECT_TRUE(lanes.requireAligned({IndexSum::of(64), start - IndexSum::of(64)}));
  ASSERT_EQ(lanes.requirements().size(), 1u);
  EXPECT_EQ(lanes.requirements()[0], "(slice_start0)");
  // -x is a multiple when x is: one requirement for both.
  EXPECT_TRUE(lanes.requireAligned({IndexSum{} - start}));
  EXPECT_EQ(lanes.requirements().size(), 1u);
}

}  // namespace
}  // namespace fuserlab::codegen
