// Generated pointwise kernels: the features the params ask for are in the
// source (vector accesses, unrolling, index type, break point, tail
// predicates, per-op rounding), and the kernels compile.
#include <functional>

#include "core/codegen/codegen.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/scheduler/pointwise/pointwise_heuristic.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

using scheduler::PointwiseParams;

// Params from the heuristic, then changed by `edit`.
class EditedPointwiseParams : public scheduler::HeuristicProvider {
 public:
  explicit EditedPointwiseParams(std::function<void(PointwiseParams&)> edit)
      : edit_(std::move(edit)) {}
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override {
    if (type != scheduler::SchedulerType::Pointwise) return std::nullopt;
    PointwiseParams params = scheduler::decidePointwise(segment, info).params;
    edit_(params);
    return scheduler::ProvidedParams{params, "test"};
  }

 private:
  std::function<void(PointwiseParams&)> edit_;
};

const PointwiseParams& paramsOf(const CompiledScript& compiled) {
  return std::get<PointwiseParams>(compiled.compiled.segmented->groups().at(0).choice.params);
}

void expectCompiles(const GeneratedKernel& kernel) {
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << kernel.source;
  }
}

constexpr const char* kBf16Add = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T2 = fd.ops.add(T0, T1)
    T3 = fd.ops.mul(T2, T0)
    fd.add_output(T3)
)";

TEST(PointwiseEmitterTest, Bf16ContiguousInputsUseSixteenByteVectors) {
  const CompiledScript compiled = compileScript(kBf16Add, "1024x1024:bf16,1024x1024:bf16");
  ASSERT_EQ(paramsOf(compiled).vectorizationFactor, 8);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_EQ(kernel.name, "pointwise_seg0");
  EXPECT_TRUE(contains(kernel.source, "constexpr int kVector = 8;"));
  EXPECT_TRUE(contains(kernel.source, "fl::Array<fl::bfloat16, kVector> T0_vec[kUnroll];"));
  EXPECT_TRUE(contains(kernel.source, "T0_vec[u] = fl::load_vector<kVector>(T0.data + ("));
  EXPECT_TRUE(contains(kernel.source, "T1_vec[u] = fl::load_vector<kVector>(T1.data + ("));
  EXPECT_TRUE(contains(kernel.source, "fl::store_vector<kVector>(T3.data + ("));
  // The vectorized pass is checked at run time, with an element pass beside it.
  EXPECT_TRUE(contains(kernel.source, "if (vector_ok) {"));
  EXPECT_TRUE(contains(kernel.source, "(uint64_t)T0.data % 16 == 0"));
  // bf16 results are rounded at every op, as the CPU reference does.
  EXPECT_TRUE(contains(kernel.source, "const float T2_v = fl::round_to_bf16("));
  EXPECT_TRUE(contains(kernel.source, "const float T3_v = fl::round_to_bf16((T2_v * "));
  EXPECT_TRUE(contains(kernel.source, "typedef int32_t index_t;"));
  EXPECT_FALSE(kernel.int64Indexing);
  // The comment block names the segment's ops and the params.
  EXPECT_TRUE(contains(kernel.source, "// pointwise_seg0: a pointwise kernel"));
  EXPECT_TRUE(contains(kernel.source, "= add(T0, T1)"));
  EXPECT_TRUE(contains(kernel.source, "//   vectorization_factor: 8"));
  EXPECT_EQ(kernel.parameters.size(), 3u);
  EXPECT_EQ(kernel.parameters[2].segmentOutput, 0);
  expectCompiles(kernel);
}

// bf16 tensors beside a float bias: vectors of 8 elements, the bf16 ones one
// 16-byte access, the float one two (a 32-byte aligned Array), instead of 4
// elements and 8-byte bf16 accesses.
TEST(PointwiseEmitterTest, FloatBesideBf16TakesTwoSixteenByteAccesses) {
  constexpr const char* kBiasAdd = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Float)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.add(T2, T1)
    T4 = fd.ops.cast(T3, dtype=DataType.BFloat16)
    fd.add_output(T4)
)";
  const CompiledScript compiled = compileScript(kBiasAdd, "512x4096:bf16,1x4096:f32");
  ASSERT_EQ(paramsOf(compiled).vectorizationFactor, 8);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "fl::Array<float, kVector> T1_vec[kUnroll];"))
      << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "(uint64_t)T1.data % 32 == 0"));
  EXPECT_TRUE(contains(kernel.source, "(uint64_t)T0.data % 16 == 0"));
  expectCompiles(kernel);
}

// The inputs' strides are constants of the kernel (0 on a size-1 axis),
// recorded for the executor's check; the outputs' are read at run time.
TEST(PointwiseEmitterTest, InputStridesAreBuiltIn) {
  const CompiledScript compiled = compileScript(kBf16Add, "64x256:bf16,64x256:bf16");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "constexpr index_t T0_s0 = (index_t)256ll;"))
      << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "constexpr index_t T1_s1 = (index_t)1ll;"));
  EXPECT_TRUE(
      contains(kernel.source,
               "const index_t T3_s0 = T3.size[0] == 1 ? (index_t)0 : (index_t)T3.stride[0];"));
  ASSERT_EQ(kernel.parameters.size(), 3u);
  EXPECT_EQ(kernel.parameters[0].builtInStrides, (std::vector<int64_t>{256, 1}));
  EXPECT_TRUE(kernel.parameters[2].builtInStrides.empty());
  expectCompiles(kernel);
  const CompiledScript oneRow = compileScript(kBf16Add, "1x256:bf16,1x256:bf16");
  EXPECT_EQ(onlyKernel(oneRow).parameters[0].builtInStrides, (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(contains(onlyKernel(oneRow).source, "constexpr index_t T0_s0 = (index_t)0ll;"));
}

TEST(PointwiseEmitterTest, LaunchCoversEveryChunk) {
  const CompiledScript compiled = compileScript(kBf16Add, "1024x1000:bf16,1024x1000:bf16");
  const PointwiseParams& params = paramsOf(compiled);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  const int64_t perBlock = params.blockDimX * params.blockDimY * params.unrollFactorInner *
                           params.unrollFactorOuter * params.vectorizationFactor;
  if (params.breakPoint == 0) {
    EXPECT_EQ(kernel.launch.grid[0], (1024 * 1000 + perBlock - 1) / perBlock);
    EXPECT_EQ(kernel.launch.block[0], params.blockDimX);
  }
  // The chunk past the end is skipped: the tail predicate.
  EXPECT_TRUE(
      contains(kernel.source, "if (base_wide >= total) continue;") ||
      contains(kernel.source, "if (row_wide >= outer_total || col_wide >= inner_total) continue;"));
}

TEST(PointwiseEmitterTest, ChunksCrossRowsOnlyAtTheGeneratedLayout) {
  // 1000 rows of 17: contiguous, so 8-element chunks run across rows; the
  // vectorized pass checks that the layout is the one the analysis saw.
  const CompiledScript compiled = compileScript(kBf16Add, "1000x17:bf16,1000x17:bf16");
  ASSERT_EQ(paramsOf(compiled).vectorizationFactor, 8);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "|| (ref_e0 == 1000 && ref_e1 == 17")) << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "&& T0_s0 == 17"));
  expectCompiles(kernel);
}

// An input read as vectors twice, once through a permute (the differential
// tester's seed 335310: a misaligned address on an H200): chunks crossing
// its 127-element rows would read the permuted copy across rows, so only
// chunks inside a row are vectorized.
TEST(PointwiseEmitterTest, ChunksDoNotCrossAxesOfATensorReadAtTwoPositions) {
  constexpr const char* kPermutedTwice = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Double)
    T1 = fd.ops.lt(T0, 0.0)
    T2 = fd.ops.permute(T1, dims=[0, 2, 1, 3])
    T3 = fd.ops.cast(T2, dtype=DataType.Float)
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.where(fd.ops.gt(T3, 0.0), T3, T4)
    fd.add_output(T5)
)";
  const CompiledScript compiled = compileScript(kPermutedTwice, "4x16x16x127:f64");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "T0_vec1")) << kernel.source;  // read twice as vectors
  EXPECT_FALSE(contains(kernel.source, "|| (ref_e0 ==")) << kernel.source;
  expectCompiles(kernel);
}

// A per-channel scale over NCHW [2, 8, 6, 6] changes every 36 elements; an
// 8-wide chunk across axes would read it once, at its first element, and
// lanes past a channel boundary would take the wrong channel's value (a
// wrong answer on the GPU, found by the reader's corpus). Chunks may cross
// axes only where every such load holds across the chunk: here with 8 x 8
// images (64 per channel), not with 6 x 6.
TEST(PointwiseEmitterTest, ChunksCrossAxesOnlyWhereScalarLoadsHoldAcrossThem) {
  constexpr const char* kChannelScale = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1])
    T4 = fd.ops.mul(T2, T3)
    T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)
    fd.add_output(T5)
)";
  // The vectorization analysis now limits the factor to chunks that hold
  // across the scale's boundaries (36 a channel: 4), so chunks of 4 may
  // cross axes; 8-wide chunks, which could not, are not chosen (and the
  // scheduler refuses them).
  const CompiledScript crossing = compileScript(kChannelScale, "2x8x6x6:bf16,8:f32");
  ASSERT_EQ(paramsOf(crossing).vectorizationFactor, 4);
  const GeneratedKernel& odd = onlyKernel(crossing);
  EXPECT_TRUE(contains(odd.source, "T1_ld")) << odd.source;
  if (paramsOf(crossing).breakPoint == 0) {
    EXPECT_TRUE(contains(odd.source, "|| (ref_e0 ==")) << odd.source;
  }
  expectCompiles(odd);
  // 7 x 7 images: a channel is 49 elements, so no chunk wider than one
  // holds (GroupNorm fp16 [8, 320, 63, 63]: 8 wide its vector pass never
  // ran, 50.0 us on an H200 in the element pass).
  const CompiledScript sevens = compileScript(kChannelScale, "2x8x7x7:bf16,8:f32");
  EXPECT_EQ(paramsOf(sevens).vectorizationFactor, 1);
  expectCompiles(onlyKernel(sevens));
  const CompiledScript aligned = compileScript(kChannelScale, "2x8x8x8:bf16,8:f32");
  const GeneratedKernel& even = onlyKernel(aligned);
  if (paramsOf(aligned).vectorizationFactor == 8 && contains(even.source, "T1_ld") &&
      paramsOf(aligned).breakPoint == 0) {
    EXPECT_TRUE(contains(even.source, "|| (ref_e0 ==")) << even.source;
  }
  expectCompiles(even);
}

// Issue 42 item 2(b): with the reference's innermost axis a broadcast of
// extent 1 ([16, 1, 64, 1] there, [16, 64, 1] here), no lane is named
// anywhere, yet a 4-wide chunk spans 4 positions of the axis outside it.
// Chunks that crossed axes stored once per lane at the chunk's first
// position, so 3 of every 4 elements stayed unwritten (NaN in 768 of 1024 on
// an H200), and an iota of that axis took its first value. Chunks cross axes
// only where the lane code (scalar stores, computed indices) holds across
// them; a gather whose row is the chunk's first row likewise, unless the rows
// are a multiple of the vector width.
TEST(PointwiseEmitterTest, ChunksCrossAxesOnlyWhereTheLaneCodeHoldsAcrossThem) {
  constexpr const char* kIotaBesideABroadcastAxis = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[16, 1, 1], contiguity=[True, None, None], dtype=DataType.Float)
    T1 = fd.ops.iota(length=64, start=0, step=1, dtype=DataType.Float)
    T2 = fd.ops.broadcast(T1, is_broadcast_dim=[True, False, True])
    T3 = fd.ops.add(T0, T2)
    T4 = fd.ops.broadcast(T3, is_broadcast_dim=[False, True, False, False])
    fd.add_output(T4)
)";
  // T3 is the kernel's output (the broadcast is a kernel-free view of it).
  const CompiledScript iota = compileScript(kIotaBesideABroadcastAxis, "16x1x1:f32");
  ASSERT_EQ(paramsOf(iota).vectorizationFactor, 4);
  const GeneratedKernel& stores = onlyKernel(iota);
  EXPECT_TRUE(contains(stores.source, "a0 = axis 0 (16) a1 = axis 1 (64) a2 = axis 2 (1)"))
      << stores.source;
  EXPECT_TRUE(contains(stores.source, "T3.data[(index_t)(a0) * T3_s0 + (index_t)(a1) * T3_s1] = "))
      << stores.source;
  EXPECT_FALSE(contains(stores.source, "|| (ref_e0 ==")) << stores.source;
  expectCompiles(stores);

  constexpr const char* kGatherRows = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)
    T2 = fd.ops.take_along_axis(T0, T1, dim=1)
    fd.add_output(T2)
)";
  const CompiledScript odd = compileScript(kGatherRows, "8x30:f32,8x30:i64");
  ASSERT_EQ(paramsOf(odd).vectorizationFactor, 4);
  const GeneratedKernel& oddRows = onlyKernel(odd);
  EXPECT_TRUE(contains(oddRows.source, "T0.data[(index_t)(a0) * T0_s0 + (index_t)(gathered_idx"))
      << oddRows.source;
  EXPECT_FALSE(contains(oddRows.source, "|| (ref_e0 ==")) << oddRows.source;
  expectCompiles(oddRows);
  const CompiledScript even = compileScript(kGatherRows, "8x32:f32,8x32:i64");
  const GeneratedKernel& evenRows = onlyKernel(even);
  if (paramsOf(even).vectorizationFactor == 4 && paramsOf(even).breakPoint == 0) {
    EXPECT_TRUE(contains(evenRows.source, "|| (ref_e0 == 8 && ref_e1 == 32")) << evenRows.source;
  }
  expectCompiles(evenRows);
}

TEST(PointwiseEmitterTest, OddElementCountIsReadElementByElement) {
  const CompiledScript compiled = compileScript(kBf16Add, "1001x17:bf16,1001x17:bf16");
  ASSERT_EQ(paramsOf(compiled).vectorizationFactor, 1);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "constexpr int kVector = 1;"));
  EXPECT_FALSE(contains(kernel.source, "load_vector"));
  EXPECT_FALSE(contains(kernel.source, "vector_ok"));
  expectCompiles(kernel);
}

TEST(PointwiseEmitterTest, Int64IndexingWhenTheParamsAskForIt) {
  const EditedPointwiseParams provider([](PointwiseParams& p) { p.useInt32Indexing = false; });
  const CompiledScript compiled = compileScript(kBf16Add, "64x256:bf16,64x256:bf16", &provider);
  ASSERT_FALSE(paramsOf(compiled).useInt32Indexing);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(kernel.int64Indexing);
  EXPECT_TRUE(contains(kernel.source, "typedef int64_t index_t;"));
  expectCompiles(kernel);
}

TEST(PointwiseEmitterTest, UnrollFactorIsTheChunkCount) {
  const EditedPointwiseParams provider([](PointwiseParams& p) {
    p.unrollFactorInner = 4;
    p.vectorizationFactor = 2;
  });
  const CompiledScript compiled = compileScript(kBf16Add, "64x256:bf16,64x256:bf16", &provider);
  ASSERT_EQ(paramsOf(compiled).unrollFactorInner, 4);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "constexpr int kUnroll = 4;"));
  EXPECT_TRUE(contains(kernel.source, "constexpr int kVector = 2;"));
  expectCompiles(kernel);
}

constexpr const char* kRowScale = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    T3 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[0])
    T4 = fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1])
    T5 = fd.ops.mul(T0, T3)
    T6 = fd.ops.add(T5, T4)
    fd.add_output(T6)
)";

TEST(PointwiseEmitterTest, InputBroadcastAlongTheInnerAxisIsReadOncePerChunk) {
  const CompiledScript compiled = compileScript(kRowScale, "4096x4096:f32,4096:f32,4096:f32");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  // T1 (one value per row) is loaded once per chunk, before any compute; T2
  // (one value per column) moves with the innermost axis and is vectorized.
  EXPECT_TRUE(contains(kernel.source, "float T1_ld")) << kernel.source;
  EXPECT_FALSE(contains(kernel.source, "T1_vec"));
  EXPECT_TRUE(contains(kernel.source, "T2_vec[u] = fl::load_vector<kVector>(T2.data"))
      << kernel.source;
  expectCompiles(kernel);
}

TEST(PointwiseEmitterTest, TwoDimensionalScheduleSplitsAtTheBreakPoint) {
  const EditedPointwiseParams provider([](PointwiseParams& p) {
    p.breakPoint = 1;
    p.blockDimX = 32;
    p.blockDimY = 4;
    p.unrollFactorOuter = 2;
    p.unrollFactorInner = 1;
    p.flipGrid = true;
  });
  const CompiledScript compiled =
      compileScript(kRowScale, "4096x4096:f32,4096:f32,4096:f32", &provider);
  const PointwiseParams& params = paramsOf(compiled);
  ASSERT_EQ(params.breakPoint, 1)
      << compiled.compiled.segmented->groups()[0].choice.providerRejection;
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "const index_t outer_total = ref_e0;"));
  EXPECT_TRUE(contains(kernel.source, "const index_t inner_total = ref_e1;"));
  // Flipped: grid x walks the rows; the grid covers every block, so each
  // block takes one without a grid-stride loop.
  EXPECT_TRUE(contains(kernel.source, "const index_t bo = (index_t)blockIdx.x;")) << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "const index_t bi = (index_t)blockIdx.y;"));
  EXPECT_FALSE(contains(kernel.source, "gridDim"));
  EXPECT_TRUE(contains(kernel.source, "constexpr int kUnrollOuter = 2;"));
  EXPECT_EQ(kernel.launch.block[0], 32);
  EXPECT_EQ(kernel.launch.block[1], 4);
  // Flipped: grid x walks the 4096 rows in blocks of 4 * 2.
  EXPECT_EQ(kernel.launch.grid[0], 4096 / 8);
  EXPECT_EQ(kernel.launch.grid[1], 4096 / (32 * params.vectorizationFactor));
  expectCompiles(kernel);
}

// Each block takes one chunk of blocks, without a grid-stride loop (its state
// cost registers): the launch's grid covers them all, and params whose grid
// would pass the launch limits (grid y: 65535 blocks) are refused.
TEST(PointwiseEmitterTest, EachBlockTakesOneChunkWithoutAGridStrideLoop) {
  {
    const CompiledScript compiled = compileScript(kBf16Add, "1024x1000:bf16,1024x1000:bf16");
    const GeneratedKernel& kernel = onlyKernel(compiled);
    ASSERT_EQ(paramsOf(compiled).breakPoint, 0);
    EXPECT_TRUE(contains(kernel.source, "const index_t block = (index_t)blockIdx.x;"))
        << kernel.source;
    EXPECT_FALSE(contains(kernel.source, "gridDim"));
    expectCompiles(kernel);
  }
  // 2 x 64 threads over rows of 8 floats: 65537 row blocks, one more than
  // grid y holds; flipped, grid x takes them.
  for (const bool flip : {false, true}) {
    SCOPED_TRACE(flip ? "flipped" : "not flipped");
    const EditedPointwiseParams provider([flip](PointwiseParams& p) {
      p.breakPoint = 1;
      p.blockDimX = 2;
      p.blockDimY = 64;
      p.unrollFactorOuter = 1;
      p.unrollFactorInner = 1;
      p.flipGrid = flip;
    });
    const CompiledScript compiled =
        compileScript(kRowScale, "4194368x8:f32,4194368:f32,8:f32", &provider);
    const auto& choice = compiled.compiled.segmented->groups()[0].choice;
    if (!flip) {
      EXPECT_TRUE(contains(choice.providerRejection, "grid y would have 65537 blocks"))
          << choice.providerRejection;
      continue;
    }
    ASSERT_EQ(paramsOf(compiled).breakPoint, 1) << choice.providerRejection;
    ASSERT_EQ(paramsOf(compiled).vectorizationFactor, 4);
    const GeneratedKernel& kernel = onlyKernel(compiled);
    EXPECT_EQ(kernel.launch.grid[0], 65537);
    EXPECT_EQ(kernel.launch.grid[1], 1);
    EXPECT_TRUE(contains(kernel.source, "const index_t bo = (index_t)blockIdx.x;"))
        << kernel.source;
    EXPECT_TRUE(contains(kernel.source, "const index_t bi = (index_t)blockIdx.y;"));
    EXPECT_FALSE(contains(kernel.source, "gridDim"));
    expectCompiles(kernel);
  }
}

// Every extent of the reference's walk is a constant, the ones the index
// divides by (a multiply and a shift) and the outermost of each part alike,
// and the reference output parameter records the sizes for the executor's
// check; the block is the params' (constants too).
TEST(PointwiseEmitterTest, ExtentsAreConstantsAndTheReferenceRecordsThem) {
  constexpr const char* kThreeD = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    T2 = fd.ops.broadcast_in_dim(T1, shape=[6, 10, 24], broadcast_dims=[2])
    T3 = fd.ops.mul(T0, T2)
    fd.add_output(T3)
)";
  const EditedPointwiseParams oneD([](PointwiseParams& p) {
    p.breakPoint = 0;
    p.blockDimX = 96;
    p.blockDimY = 1;
    p.unrollFactorOuter = 1;
  });
  const CompiledScript flat = compileScript(kThreeD, "6x10x24:f32,24:f32", &oneD);
  ASSERT_EQ(paramsOf(flat).breakPoint, 0);
  const GeneratedKernel& k1 = onlyKernel(flat);
  EXPECT_TRUE(contains(k1.source, "constexpr index_t ref_e0 = 6;  // T4.size[0]")) << k1.source;
  EXPECT_TRUE(contains(k1.source, "constexpr index_t ref_e1 = 10;")) << k1.source;
  EXPECT_FALSE(contains(k1.source, "const index_t ref_e")) << k1.source;
  EXPECT_TRUE(contains(k1.source, "constexpr index_t ref_e2 = 24;")) << k1.source;
  EXPECT_TRUE(contains(k1.source, "constexpr int kBlockX = 96;")) << k1.source;
  EXPECT_FALSE(contains(k1.source, "blockDim")) << k1.source;
  expectCompiles(k1);

  const EditedPointwiseParams twoD([](PointwiseParams& p) {
    p.breakPoint = 2;
    p.blockDimX = 32;
    p.blockDimY = 4;
    p.unrollFactorOuter = 2;
    p.unrollFactorInner = 1;
  });
  const CompiledScript split = compileScript(kThreeD, "6x10x24:f32,24:f32", &twoD);
  ASSERT_EQ(paramsOf(split).breakPoint, 2)
      << split.compiled.segmented->groups()[0].choice.providerRejection;
  const GeneratedKernel& k2 = onlyKernel(split);
  EXPECT_TRUE(contains(k2.source, "constexpr index_t ref_e0 = 6;")) << k2.source;
  EXPECT_TRUE(contains(k2.source, "constexpr index_t ref_e1 = 10;")) << k2.source;
  EXPECT_TRUE(contains(k2.source, "constexpr index_t ref_e2 = 24;")) << k2.source;
  bool recorded = false;
  for (const KernelParameter& p : k2.parameters) {
    if (p.name != "T4") {
      EXPECT_TRUE(p.builtInSizes.empty()) << p.name;
      continue;
    }
    EXPECT_EQ(p.builtInSizes, (std::vector<int64_t>{6, 10, 24}));
    recorded = true;
  }
  EXPECT_TRUE(recorded);
  EXPECT_TRUE(contains(k2.source, "constexpr int kBlockY = 4;")) << k2.source;
  EXPECT_FALSE(contains(k2.source, "blockDim")) << k2.source;
  expectCompiles(k2);
}

// Float math cast back to bf16 for the output: the store's fl::to_element
// does the one rounding; the cast does not round first.
TEST(PointwiseEmitterTest, OutputCastRoundsOnceInTheStore) {
  const CompiledScript compiled = compileScript(R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.mul(T1, T1)
    T3 = fd.ops.cast(T2, dtype=DataType.BFloat16)
    fd.add_output(T3)
)",
                                                "1024x1024:bf16");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "T3_vec[j] = fl::to_element<fl::bfloat16>(T2_v);"))
      << kernel.source;
  EXPECT_FALSE(contains(kernel.source, "round_to_bf16")) << kernel.source;
  expectCompiles(kernel);
}

TEST(PointwiseEmitterTest, OuterUnrolledRowsShareLoadsBroadcastAlongTheOuterPart) {
  const EditedPointwiseParams provider([](PointwiseParams& p) {
    p.breakPoint = 1;
    p.blockDimX = 64;
    p.blockDimY = 2;
    p.unrollFactorOuter = 4;
    p.unrollFactorInner = 2;
  });
  const CompiledScript compiled =
      compileScript(kRowScale, "4096x4096:f32,4096:f32,4096:f32", &provider);
  ASSERT_EQ(paramsOf(compiled).unrollFactorOuter, 4)
      << compiled.compiled.segmented->groups()[0].choice.providerRejection;
  const GeneratedKernel& kernel = onlyKernel(compiled);
  // T2 (one value per column) is the same for the 4 rows a thread handles:
  // one load per inner slot, made by the first row, read by every row.
  EXPECT_TRUE(contains(kernel.source, "T2_vec[kUnrollInner];")) << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "if (u < kUnrollInner) T2_vec[u] = fl::load_vector"));
  EXPECT_TRUE(contains(kernel.source, "fl::load_lane(T2_vec[u % kUnrollInner], j)"));
  // T0 and T1 move with the rows: one load per unrolled chunk.
  EXPECT_TRUE(contains(kernel.source, "T0_vec[kUnroll];"));
  EXPECT_TRUE(contains(kernel.source, "T1_ld1[kUnroll];") ||
              contains(kernel.source, "T1_ld0[kUnroll];") ||
              contains(kernel.source, "T1_ld2[kUnroll];"))
      << kernel.source;
  EXPECT_FALSE(contains(kernel.source, "T0_vec[kUnrollInner]"));
  expectCompiles(kernel);
}

TEST(PointwiseEmitterTest, WithoutOuterUnrollingEveryLoadHasOneSlotPerChunk) {
  const EditedPointwiseParams provider([](PointwiseParams& p) {
    p.breakPoint = 1;
    p.unrollFactorOuter = 1;
    p.unrollFactorInner = 2;
  });
  const CompiledScript compiled =
      compileScript(kRowScale, "4096x4096:f32,4096:f32,4096:f32", &provider);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "T2_vec[kUnroll];")) << kernel.source;
  EXPECT_FALSE(contains(kernel.source, "kUnrollInner]"));
}

constexpr const char* kMetaOps = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half)
    T1 = fd.ops.permute(T0, dims=[1, 0])
    T2 = fd.ops.reshape(T1, new_shape=[16, 64])
    T3 = fd.ops.cast(T2, dtype=DataType.Float)
    T4 = fd.ops.sigmoid(T3)
    T5 = fd.ops.pad(T4, [1, 1, 0, 0], None)
    T6 = fd.ops.slice(T5, start_indices=[0, 1], end_indices=[16, 65], strides=[1, 1])
    T7 = fd.ops.cat([T6, T4], dim=0)
    T8 = fd.ops.cast(T7, dtype=DataType.Half)
    fd.add_output(T8)
)";

TEST(PointwiseEmitterTest, MetaOpsBecomeIndexArithmetic) {
  const CompiledScript compiled = compileScript(kMetaOps, "32x32:f16");
  for (const runtime::SegmentKernel& segment : compiled.kernels) {
    ASSERT_TRUE(segment.kernel.has_value()) << segment.error;
    expectCompiles(*segment.kernel);
  }
}

// A reshape that merges three axes of a permuted tensor: the producer's
// outer index is position / (extent * extent), never position / extent *
// extent (sdpa_fwd's output reshape read out of bounds that way on an H100).
constexpr const char* kPermuteReshape = R"(
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[2, 16, 8, 64], contiguity=[True, True, True, True], dtype=DataType.Float)
    T1 = fd.ops.permute(T0, dims=[0, 2, 1, 3])
    T2 = fd.ops.reshape(T1, new_shape=[2, 8192])
    T3 = fd.ops.mul(T2, T2)
    fd.add_output(T3)
)";

TEST(PointwiseEmitterTest, ReshapeDividesByTheWholeInnerExtent) {
  const CompiledScript compiled = compileScript(kPermuteReshape, "2x16x8x64:f32");
  bool sawKernel = false;
  for (const runtime::SegmentKernel& segment : compiled.kernels) {
    if (!segment.kernel.has_value()) continue;
    sawKernel = true;
    const std::string& source = segment.kernel->source;
    EXPECT_EQ(source.find("/ (int64_t)64ll *"), std::string::npos) << source;
    EXPECT_EQ(source.find("/ ((int32_t)(int64_t)64ll) *"), std::string::npos) << source;
    // The batch axis is its own block (core/codegen/reshape_index.h): the
    // outer index of the merged axes divides by the two inner extents.
    EXPECT_NE(source.find("/ ((int32_t)(int64_t)64ll * (int32_t)(int64_t)16ll)"), std::string::npos)
        << source;
    expectCompiles(*segment.kernel);
  }
  EXPECT_TRUE(sawKernel);
}

}  // namespace
}  // namespace fuserlab::codegen
