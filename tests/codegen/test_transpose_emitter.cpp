// Generated transpose kernels: tiles through shared memory per
// TransposeParams, vectorized along each group's innermost axis.
#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

using scheduler::TransposeParams;

constexpr const char* kPermuteAdd = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T2 = fd.ops.permute(T0, dims=[1, 0])
    T3 = fd.ops.cast(T2, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.add(T3, T4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    fd.add_output(T6)
    fd.add_output(T5, stride_order=[0, 1])
)";

const TransposeParams& paramsOf(const CompiledScript& compiled) {
  return std::get<TransposeParams>(compiled.compiled.segmented->groups().at(0).choice.params);
}

TEST(TransposeEmitterTest, TilesGoThroughSharedMemoryWithVectorAccesses) {
  const CompiledScript compiled = compileScript(kPermuteAdd, "1024x2048:bf16,2048x1024:bf16");
  ASSERT_EQ(compiled.compiled.segmented->groups().size(), 1u);
  ASSERT_EQ(compiled.compiled.segmented->groups()[0].choice.type,
            scheduler::SchedulerType::Transpose);
  const TransposeParams& params = paramsOf(compiled);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_EQ(kernel.name, "transpose_seg0");
  const std::string& src = kernel.source;
  EXPECT_TRUE(contains(src, "constexpr int kTile1 = " + std::to_string(params.tileSize1)));
  // T0 is read along its own innermost axis into shared memory; T5 (column
  // major) is written from it along the same axis.
  EXPECT_TRUE(contains(src, "__shared__ fl::bfloat16 smem_T0[kTile2][kTile1 + 1];")) << src;
  EXPECT_TRUE(contains(src, "__shared__ float smem_T5[kTile2][kTile1 + 1];")) << src;
  EXPECT_TRUE(contains(src, "// Phase 1: group-1 inputs"));
  EXPECT_TRUE(contains(src, "// Phase 3: group-1 outputs"));
  if (params.vectorizationFactor1 > 1) {
    EXPECT_TRUE(contains(
        src, "fl::load_vector<" + std::to_string(params.vectorizationFactor1) + ">(T0.data"));
  }
  if (params.vectorizationFactor2 > 1) {
    EXPECT_TRUE(contains(
        src, "fl::store_vector<" + std::to_string(params.vectorizationFactor2) + ">(T6.data"));
  }
  EXPECT_EQ(kernel.launch.block[0], params.blockDim);
  EXPECT_EQ(kernel.launch.grid[0], (2048 / params.tileSize2) * (1024 / params.tileSize1));
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << src;
  }
}

TEST(TransposeEmitterTest, PartialTilesSkipElementsPastTheEnd) {
  const CompiledScript compiled = compileScript(kPermuteAdd, "333x1001:bf16,1001x333:bf16");
  ASSERT_EQ(compiled.compiled.segmented->groups()[0].choice.type,
            scheduler::SchedulerType::Transpose);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "if (a1 >= ref_e1 || a0 >= ref_e0) continue;"))
      << kernel.source;
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << kernel.source;
  }
}

// The tile loop divides by the tile counts and by the batch axes' extents:
// every extent but the outermost batch axis's is a constant in the source.
TEST(TransposeEmitterTest, ExtentsTheTileLoopDividesByAreConstants) {
  const CompiledScript flat = compileScript(kPermuteAdd, "333x1001:bf16,1001x333:bf16");
  const GeneratedKernel& k2 = onlyKernel(flat);
  EXPECT_TRUE(contains(k2.source, "constexpr index_t ref_e0 = 1001;")) << k2.source;
  EXPECT_TRUE(contains(k2.source, "constexpr index_t ref_e1 = 333;")) << k2.source;

  const CompiledScript batched = compileScript(R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float)
    T2 = fd.ops.permute(T0, dims=[0, 1, 3, 2])
    T3 = fd.ops.add(T2, T1)
    fd.add_output(T3)
)",
                                               "3x5x64x96:f32,3x5x96x64:f32");
  ASSERT_EQ(batched.compiled.segmented->groups()[0].choice.type,
            scheduler::SchedulerType::Transpose);
  const GeneratedKernel& k4 = onlyKernel(batched);
  EXPECT_TRUE(contains(k4.source, "const index_t ref_e0 = (index_t)T3.size[0];")) << k4.source;
  EXPECT_TRUE(contains(k4.source, "constexpr index_t ref_e1 = 5;")) << k4.source;
  EXPECT_TRUE(contains(k4.source, "constexpr index_t ref_e2 = 96;")) << k4.source;
  EXPECT_TRUE(contains(k4.source, "constexpr index_t ref_e3 = 64;")) << k4.source;
  for (const GeneratedKernel* kernel : {&k2, &k4}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(*kernel, 90)) << kernel->source;
  }
}

// The block size is the launch's, so each phase's loop over the tile has a
// constant trip count, unrolled where short; then phase 1's loads of every
// step come before its stores to shared memory, and phase 2's direct loads
// before those stores too, so both inputs' loads of a tile are in flight
// together.
TEST(TransposeEmitterTest, DirectLoadsOfEveryStepGoBeforePhaseOne) {
  const CompiledScript compiled = compileScript(kPermuteAdd, "4096x8192:bf16,8192x4096:bf16");
  ASSERT_EQ(compiled.compiled.segmented->groups()[0].choice.type,
            scheduler::SchedulerType::Transpose);
  const TransposeParams& params = paramsOf(compiled);
  ASSERT_EQ(params.vectorizationFactor2, 8);
  const int64_t steps = params.tileSize1 * params.tileSize2 / (params.blockDim * 8);
  ASSERT_LE(steps, 8);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  const std::string& src = kernel.source;
  EXPECT_TRUE(contains(src, "constexpr int threads = " + std::to_string(params.blockDim) + ";"))
      << src;
  const std::string early =
      "fl::Array<fl::bfloat16, 8> T1_vec0_early[" + std::to_string(steps) + "];";
  const size_t prefetch = src.find(early);
  const size_t phase1 = src.find("// Phase 1: group-1 inputs");
  const size_t phase2 = src.find("// Phase 2: compute the tile");
  ASSERT_NE(prefetch, std::string::npos) << src;
  EXPECT_LT(prefetch, phase1) << src;
  EXPECT_LT(phase1, phase2) << src;
  EXPECT_TRUE(contains(src, "T1_vec0_early[step] = fl::load_vector<8>(T1.data")) << src;
  // Phase 1's own loads come first, all of them, then its stores.
  const std::string v1 = std::to_string(params.vectorizationFactor1);
  ASSERT_GT(params.vectorizationFactor1, 1);
  const size_t staged = src.find("smem_T0_early[step] = fl::load_vector<" + v1 + ">(T0.data");
  ASSERT_NE(staged, std::string::npos) << src;
  EXPECT_LT(staged, prefetch) << src;
  EXPECT_TRUE(contains(src, "const fl::Array<fl::bfloat16, " + v1 + "> v = smem_T0_early[step];"))
      << src;
  EXPECT_TRUE(contains(src, "const fl::Array<fl::bfloat16, 8> T1_vec0 = T1_vec0_early[step];"))
      << src;
  EXPECT_TRUE(contains(src, "#pragma unroll\n      for (int step = 0; step < " +
                                std::to_string(steps) + "; ++step) {"))
      << src;
  // The element-wise body, the fallback, stays rolled with its loads in
  // its loop: its registers would count against the vector body's blocks.
  const int64_t elementSteps = params.tileSize1 * params.tileSize2 / params.blockDim;
  const std::string elementBody = src.substr(src.find("} else {"));
  EXPECT_TRUE(contains(elementBody,
                       "for (int step = 0; step < " + std::to_string(elementSteps) + "; ++step) {"))
      << elementBody;
  EXPECT_FALSE(contains(elementBody, "_early")) << elementBody;
  EXPECT_FALSE(contains(elementBody, "#pragma unroll\n      for (int step")) << elementBody;
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << src;
  }
}

}  // namespace
}  // namespace fuserlab::codegen
