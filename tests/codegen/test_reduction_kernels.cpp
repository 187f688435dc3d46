// ReductionEmitterTest on single kernels: what the reduction and persistent
// emitters write for particular examples and params (projection, shifted
// rows, vector accesses, range tests, grid and cluster combines), checked
// in the generated source and compiled with NVRTC. tests/gpu runs such
// kernels against the CPU reference.
#include <array>
#include <string>

#include "core/cuda/nvrtc_compiler.h"
#include "core/ir/error.h"
#include "tests/codegen/reduction_examples.h"
#include "tests/source_dir.h"
#include "tests/test_scripts.h"

namespace fuserlab::codegen {
namespace {

TEST_F(ReductionEmitterTest, ProjectionKeepsTheBf16InputResident) {
  // Seed 000 at the issue's size (65536 per row): projected, the kernel
  // keeps T0 (bf16) and recomputes the float upcast after the sum.
  const OnlySegment only = onlySegment("seed000_forwarding_miss.py");
  const BoundSegment& s = only.segment();
  ASSERT_TRUE(s.params().projectPersistentBuffers);
  const GeneratedKernel projected = generate(s, s.params());
  const std::string storage = s.params().persistentStorage == PersistentStorage::Registers
                                  ? "fl::Array<fl::bfloat16, "
                                  : "fl::bfloat16* S_T0";
  EXPECT_TRUE(contains(projected.source, storage)) << projected.source;
  EXPECT_FALSE(contains(projected.source, "float* S_")) << projected.source;

  ReductionParams plain = s.params();
  plain.projectPersistentBuffers = false;
  plain.persistentStorage = PersistentStorage::SharedMemory;
  const GeneratedKernel kept = generate(s, plain);
  EXPECT_TRUE(contains(kept.source, "float* S_T2")) << kept.source;
  EXPECT_FALSE(contains(kept.source, "S_T0")) << kept.source;
  // The float buffer takes twice the shared memory of the bf16 input (of
  // each block's share of the row, which the heuristic splits over a
  // cluster on an H100).
  ReductionParams projectedSmem = s.params();
  projectedSmem.persistentStorage = PersistentStorage::SharedMemory;
  EXPECT_GT(
      kept.launch.dynamicSharedMemoryBytes,
      generate(s, projectedSmem).launch.dynamicSharedMemoryBytes + 65536 / s.params().gridDimY);
}

TEST_F(ReductionEmitterTest, LayerNormIsOnePassWithVectorizedAccesses) {
  const OnlySegment only = onlySegment("layer_norm.py");
  const BoundSegment& s = only.segment();
  const ReductionParams& p = s.params();
  ASSERT_EQ(p.vectorizationFactor, 8);
  const GeneratedKernel k = generate(s, p);
  // bf16 input, weight and bias read with 16-byte loads, the output written
  // with 16-byte stores; two passes for the two-pass Welford, one more for
  // the output; mean and rstd written by the row's first thread.
  EXPECT_TRUE(contains(k.source, "fl::load_vector<8>(T0.data")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::load_vector<8>(T1.data")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::store_vector<8>(")) << k.source;
  EXPECT_TRUE(contains(k.source, "threadIdx.x == 0 && row_ok")) << k.source;
  EXPECT_EQ(k.launch.block[0], p.blockDimX);
  EXPECT_EQ(k.launch.block[1], p.blockDimY);
  EXPECT_EQ(k.launch.grid[0], p.gridDimX);
  EXPECT_EQ(k.workspaceBytes, 0);
}

// A row length that 8 does not divide (the suite's LayerNorm 8192x4099):
// the inner persistent kernel shifts each row to its first aligned element,
// so the bf16 input and output keep 8-byte accesses; the row's head and
// tail elements are read and written one by one, the 1-D weight and bias
// (not laid out as rows) element by element. Was vectorization 1.
TEST_F(ReductionEmitterTest, OddRowLengthKeepsVectorsThroughShiftedRows) {
  const std::string source = R"(
def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.broadcast_in_dim(T3, shape=T0.shape(), broadcast_dims=[0])
    T5 = fd.ops.sub(T2, T4)
    T6 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1])
    T7 = fd.ops.cast(T6, dtype=DataType.Float)
    T8 = fd.ops.mul(T5, T7)
    T9 = fd.ops.cast(T8, dtype=DataType.BFloat16)
    fd.add_output(T9)
)";
  const CompiledScript compiled = compileScript(source, "8192x4099:bf16,4099:bf16");
  ASSERT_EQ(compiled.compiled.segmented->groups().size(), 1u);
  const auto& group = compiled.compiled.segmented->groups().front();
  ASSERT_EQ(group.choice.type, SchedulerType::InnerPersistent);
  const auto& p = std::get<ReductionParams>(group.choice.params);
  EXPECT_EQ(p.vectorizationFactor, 4);
  EXPECT_GE(p.blockDimX, 6);
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "const int head = (int)((4 - (row * 4099) % 4) % 4);"))
      << k.source;
  EXPECT_TRUE(contains(k.source, "fl::load_vector<4>(T0.data + (row * 4099) + ((head + c * 4)))"))
      << k.source;
  EXPECT_TRUE(contains(k.source, "fl::store_vector<4>(T11.data + (row * 4099) + ((head + c * 4))"))
      << k.source;
  EXPECT_TRUE(contains(k.source, "T1.data[(((head + c * 4) + l))]")) << k.source;
  // The head and tail pass: one element per thread, kept in one more chunk.
  EXPECT_TRUE(contains(k.source, "const bool ok = row_ok && e < extra;")) << k.source;
  EXPECT_TRUE(contains(k.source, "S_T0[")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

// The suite's masked softmax at 8192x2050: kept (unprojected) buffers take
// 16-byte chunks in shifted rows, and the block covers only the whole
// aligned chunks, at most 2050 / 8 = 256 a row: 64 threads of 4 (was 192
// threads of 3 chunks of 4, 37.7 us on an H100 against 28.4).
TEST_F(ReductionEmitterTest, ShiftedRowsOfKeptBuffersUse16ByteChunks) {
  std::ifstream file(fuserlab::test::sourceDir() + "/tests/perf/suite/masked_softmax_8192x2050.py");
  ASSERT_TRUE(file.good());
  const std::string source((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
  const CompiledScript compiled = compileScript(source);
  ASSERT_EQ(compiled.compiled.segmented->groups().size(), 1u);
  const auto& p =
      std::get<ReductionParams>(compiled.compiled.segmented->groups().front().choice.params);
  EXPECT_EQ(p.vectorizationFactor, 8);
  EXPECT_EQ(p.blockDimX * p.persistentBatchSize * p.vectorizationFactor, 2048);
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "const index_t chunks = (2050 - head) / 8;")) << k.source;
  EXPECT_TRUE(contains(k.source, "for (int b = 0; b < 4; ++b) {")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::load_vector<8>(T0.data + (row * 2050) + ((head + c * 8)))"))
      << k.source;
  EXPECT_TRUE(contains(k.source, "fl::load_vector<8>(T1.data + (row * 2050) + ((head + c * 8)))"))
      << k.source;
  EXPECT_TRUE(contains(k.source, "const bool ok = row_ok && e < extra;")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

TEST_F(ReductionEmitterTest, IotaMaskIsComputedPerElement) {
  // causal_mask_iota.py compares one iota broadcast along the rows with the
  // same iota broadcast along the row's elements: the mask varies along the
  // reduced axis, so it cannot be a per-row value (it was, and the kernel
  // ignored the mask).
  const OnlySegment only = onlySegment("causal_mask_iota.py");
  const BoundSegment& s = only.segment();
  const GeneratedKernel k = generate(s, s.params());
  EXPECT_FALSE(contains(k.source, "bool pr_T6")) << k.source;
  EXPECT_FALSE(contains(k.source, "pr_T8[")) << k.source;
  EXPECT_TRUE(contains(k.source, "const bool T6_v")) << k.source;
}

TEST_F(ReductionEmitterTest, RegisterCapBecomesMaxrregcount) {
  const OnlySegment only = onlySegment("softmax.py");
  ReductionParams p = only.segment().params();
  p.registerCap = 96;
  const GeneratedKernel k = generate(only.segment(), p);
  EXPECT_NE(std::find(k.options.begin(), k.options.end(), "--maxrregcount=96"), k.options.end());
  p.registerCap = 0;
  EXPECT_TRUE(generate(only.segment(), p).options.empty());
}

TEST_F(ReductionEmitterTest, IndexTypeFollowsUseInt32Indexing) {
  const OnlySegment only = onlySegment("sum_reduction.py");
  ReductionParams p = only.segment().params();
  ASSERT_TRUE(p.useInt32Indexing);
  EXPECT_TRUE(contains(generate(only.segment(), p).source, "typedef int32_t index_t;"));
  p.useInt32Indexing = false;
  const GeneratedKernel k = generate(only.segment(), p);
  EXPECT_TRUE(contains(k.source, "typedef int64_t index_t;"));
  EXPECT_TRUE(k.int64Indexing);
}

TEST_F(ReductionEmitterTest, GridReductionUsesWorkspaceAndLastBlock) {
  // A few long rows: the heuristic splits each row over blocks.
  const CompiledScript compiled = compileScript(
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2 = fd.ops.max(T1, dims=[1], keepdim=False, dtype=DataType.Null)\n"
      "    T3, T4 = fd.ops.var_mean(T1, dims=[1], correction=1, keepdim=False)\n"
      "    fd.add_output(T2)\n"
      "    fd.add_output(T3)\n"
      "    fd.add_output(T4)\n",
      "4x1048576:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_GT(k.launch.grid[1], 1);
  EXPECT_GT(k.workspaceBytes, 0);
  EXPECT_TRUE(contains(k.source, "fl::red::arrive_last")) << k.source;
  // The last block resets arrive_last's semaphore: no memset per launch.
  EXPECT_TRUE(contains(k.source, "if (last) *semaphore = 0u;")) << k.source;
  EXPECT_FALSE(k.zeroWorkspaceEachLaunch);
  EXPECT_FALSE(k.parameters.empty());
  for (int arch : {80, 90}) EXPECT_FALSE(runtime::compileWithNvrtc(k, arch).cubin.empty());
}

TEST_F(ReductionEmitterTest, ChunkLanesAreReadThroughLoadLane) {
  // Each lane of a loaded chunk is read with fl::load_lane, which reads a
  // bf16 lane's whole 32-bit word (no PRMT to extract an odd lane first).
  const CompiledScript outer = compileScript(test_scripts::kColSum, "8192x4096:bf16");
  const GeneratedKernel& k = onlyKernel(outer);
  EXPECT_TRUE(contains(k.source, "const float T1_v = fl::load_lane(T0_ld[u][k], v);")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::load_value(T0_ld")) << k.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

TEST_F(ReductionEmitterTest, StoredChunksAreReadAsTheirStorageHoldsThem) {
  // A persistent kernel's kept chunks: in registers they are whole chunks
  // and read with fl::load_lane, as loaded chunks are (mixing the two reads
  // of the same registers changed the suite's LayerNorm backward from 95 to
  // 72 registers and 63.6 to 65.0 us); in shared memory, element by element.
  const OnlySegment only = onlySegment("layer_norm.py");
  const BoundSegment& s = only.segment();
  ReductionParams p = s.params();
  p.persistentStorage = PersistentStorage::Registers;
  const GeneratedKernel registers = generate(s, p);
  EXPECT_TRUE(contains(registers.source, "fl::load_lane(S_T0[")) << registers.source;
  EXPECT_FALSE(contains(registers.source, "fl::load_value(S_T")) << registers.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(registers, 90).cubin.empty());
  p.persistentStorage = PersistentStorage::SharedMemory;
  const GeneratedKernel shared = generate(s, p);
  EXPECT_TRUE(contains(shared.source, "fl::load_value(S_T0[")) << shared.source;
  EXPECT_FALSE(contains(shared.source, "fl::load_lane(S_T")) << shared.source;
  EXPECT_FALSE(runtime::compileWithNvrtc(shared, 90).cubin.empty());
}

TEST_F(ReductionEmitterTest, OuterLoopTestsOnlyTheChunksThatCanBeOutOfRange) {
  // col_sum 8192x4096: 32 column groups of 16 threads x 8 columns tile the
  // 4096 columns, and 8 blocks of 1024 rows, walked 16 x 4 rows at a time,
  // tile the rows: no chunk is tested.
  const CompiledScript colSum = compileScript(test_scripts::kColSum, "8192x4096:bf16");
  const GeneratedKernel& exact = onlyKernel(colSum);
  EXPECT_TRUE(contains(exact.source, "col_ok[k] = true;")) << exact.source;
  EXPECT_TRUE(contains(exact.source, "const bool ok = true;")) << exact.source;
  EXPECT_FALSE(contains(exact.source, "j < j_end;")) << exact.source;
  // Columns that the groups do not tile, rows that the blocks do not: both
  // tests stay.
  for (const char* sizes : {"8192x4000:bf16", "8000x4096:bf16", "3000x771:bf16"}) {
    SCOPED_TRACE(sizes);
    const CompiledScript compiled = compileScript(test_scripts::kColSum, sizes);
    const GeneratedKernel& k = onlyKernel(compiled);
    const auto& p =
        std::get<ReductionParams>(compiled.compiled.segmented->groups().front().choice.params);
    const int64_t columns = std::stoll(std::string(sizes).substr(std::string(sizes).find('x') + 1));
    const int64_t rows = std::stoll(sizes);
    // An outer reduction's block_dim_y threads walk the columns, its
    // block_dim_x threads the rows.
    const bool columnsExact =
        (columns / p.vectorizationFactor) % (p.blockDimY * p.unrollFactorIteration) == 0;
    const int64_t perBlock = (rows + p.gridDimY - 1) / p.gridDimY;
    const bool rowsExact =
        perBlock * p.gridDimY == rows && perBlock % (p.blockDimX * p.unrollFactorReduction) == 0;
    EXPECT_FALSE(columnsExact && rowsExact);
    EXPECT_EQ(columnsExact, std::string(sizes) == "8000x4096:bf16");
    EXPECT_EQ(contains(k.source, "col_ok[k] = true;"), columnsExact) << k.source;
    EXPECT_EQ(contains(k.source, "j < j_end;"), !rowsExact) << k.source;
    EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
  }
}

TEST_F(ReductionEmitterTest, InnerLoopTestsOnlyTheChunksThatCanBeOutOfRange) {
  // row_sum: 8192 (or 8191) rows in row groups of 1 and 512 chunks of 8 in
  // 128 threads x 4 tile the tensor; rows of 256 in groups of 4 do not tile
  // 8191 rows, and 4000 columns are 500 chunks.
  const char* rowSum =
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)\n"
      "    fd.add_output(T2)\n";
  struct Case {
    const char* sizes;
    bool rowsExact, chunksExact;
  };
  for (const Case& c : {Case{"8192x4096:bf16", true, true}, Case{"8191x4096:bf16", true, true},
                        Case{"8191x256:bf16", false, true}, Case{"8192x4000:bf16", true, false}}) {
    SCOPED_TRACE(c.sizes);
    const CompiledScript compiled = compileScript(rowSum, c.sizes);
    ASSERT_EQ(compiled.compiled.segmented->groups().front().choice.type, SchedulerType::Reduction);
    const GeneratedKernel& k = onlyKernel(compiled);
    EXPECT_EQ(contains(k.source, "row_ok[k] = true;"), c.rowsExact) << k.source;
    EXPECT_EQ(contains(k.source, "c < c_end;"), !c.chunksExact) << k.source;
    EXPECT_EQ(contains(k.source, "const bool ok = true;"), c.rowsExact && c.chunksExact)
        << k.source;
    EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
  }
}

TEST_F(ReductionEmitterTest, OuterPersistentAcrossBlocksSynchronizesTheGrid) {
  // Long columns: the outer persistent heuristic splits them over blocks.
  // Without a cluster (before sm_90, or the tuner's other choice) they
  // exchange partial sums at grid barriers.
  const OnlySegment only = onlySegment("batch_norm_outer.py");
  const BoundSegment& s = only.segment();
  ReductionParams p = s.params();
  ASSERT_FALSE(p.fastestDimReduction);
  p.clusterReduction = false;
  const GeneratedKernel k = generate(s, p);
  ASSERT_TRUE(p.crossGridReduction);
  EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_FALSE(contains(k.source, "fl::red::cluster_allreduce<")) << k.source;
  EXPECT_TRUE(contains(k.source, "fl::red::grid_sync(semaphores + group, ")) << k.source;
  EXPECT_GT(k.workspaceBytes, 0);
  // grid_sync's counters rise through the launch; the last block of a
  // column group to finish sets them back to zero, so the workspace is
  // zeroed once, not by a memset before each launch.
  const size_t lastSync = k.source.rfind("fl::red::grid_sync(semaphores + group, ");
  const size_t reset =
      k.source.find("fl::red::grid_sync_reset(semaphores + group, exits + group, " +
                    std::to_string(p.gridDimY) + "u);");
  ASSERT_NE(reset, std::string::npos) << k.source;
  EXPECT_LT(lastSync, reset);
  EXPECT_FALSE(k.zeroWorkspaceEachLaunch);
  // Columns on threadIdx.x, so a warp reads contiguous bf16 vectors.
  EXPECT_EQ(k.launch.block[0], p.blockDimY);
  EXPECT_EQ(k.launch.block[1], p.blockDimX);
  EXPECT_TRUE(
      contains(k.source, "fl::load_vector<" + std::to_string(p.vectorizationFactor) + ">(T0.data"))
      << k.source;
}

TEST_F(ReductionEmitterTest, OuterPersistentSplitCombinesInAClusterOnHopper) {
  // BatchNorm forward [16384, 128] bf16 on an H100: each column group's 8
  // blocks form a thread-block cluster. Per reduction: the block's partials
  // into thread row 0 (col_reduce, its closing __syncthreads left to the
  // cluster barrier), pushed into every rank's slots, one cluster barrier,
  // each block adding the slots in rank order. No workspace, no grid
  // barrier.
  const OnlySegment only = onlySegment("batch_norm_outer.py");
  const BoundSegment& s = only.segment();
  const ReductionParams& p = s.params();
  ASSERT_EQ(p.gridDimY, 8);
  ASSERT_TRUE(p.clusterReduction);
  const GeneratedKernel k = generate(s, p);
  EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, 8, 1}));
  EXPECT_TRUE(contains(k.source, "__launch_bounds__(512) __cluster_dims__(1, 8, 1) ")) << k.source;
  EXPECT_EQ(k.workspaceBytes, 0);
  EXPECT_FALSE(contains(k.source, "fl::red::grid_sync(")) << k.source;
  EXPECT_FALSE(contains(k.source, "fl::red::grid_sync_reset(")) << k.source;
  EXPECT_FALSE(contains(k.source, "col_allreduce<8, 64")) << k.source;
  // The mean's sum and then the squared deviations' sum, each with its own
  // exchange slots (8 ranks x 8 column threads x 4 lanes of float) after
  // the 2 KB scratch.
  for (const std::string acc : {"acc_T4", "acc_T4_m2"}) {
    EXPECT_TRUE(contains(k.source, "fl::red::col_reduce<8, 64, 4, 4, false>(" + acc + ", "))
        << k.source;
    EXPECT_TRUE(contains(k.source, "fl::red::cluster_allreduce<8, 4, 8>(" + acc +
                                       ", fl::SumOp<float>(), " + acc + "_xch, col_ok);"))
        << k.source;
  }
  EXPECT_TRUE(contains(k.source, "acc_T4_xch = reinterpret_cast<float*>(fl_smem + 2048);"))
      << k.source;
  EXPECT_TRUE(contains(k.source, "acc_T4_m2_xch = reinterpret_cast<float*>(fl_smem + 3072);"))
      << k.source;
  EXPECT_EQ(k.launch.dynamicSharedMemoryBytes, 4096);
  // The mean is all-reduced before the second pass reads it.
  EXPECT_LT(k.source.find("cluster_allreduce<8, 4, 8>(acc_T4, "),
            k.source.find("fl::red::col_reduce<8, 64, 4, 4, false>(acc_T4_m2, "));
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());

  // An A100 has no clusters: the same fusion keeps its grid barriers.
  const auto ampere = compileExample("batch_norm_outer.py", "a100", "privatize");
  ASSERT_EQ(ampere.size(), 1u);
  ASSERT_EQ(ampere.front()->segments.size(), 1u);
  const BoundSegment& a = ampere.front()->segments.front();
  EXPECT_FALSE(a.params().clusterReduction);
  const GeneratedKernel ka = generate(a, a.params());
  EXPECT_TRUE(contains(ka.source, "fl::red::grid_sync(semaphores + group, ")) << ka.source;
  EXPECT_EQ(ka.launch.cluster, (std::array<int64_t, 3>{1, 1, 1}));
}

TEST_F(ReductionEmitterTest, ClusterExchangePastTheSharedMemoryIsRefused) {
  // BatchNorm's cluster params with the rows kept in shared memory over 2
  // blocks (128 chunks a thread): the buffer, the scratch and the exchange
  // slots do not fit an H100 block, so the emitter says so instead of
  // writing a kernel that cannot launch.
  const OnlySegment only = onlySegment("batch_norm_outer.py");
  ReductionParams p = only.segment().params();
  ASSERT_TRUE(p.clusterReduction);
  p.persistentStorage = PersistentStorage::SharedMemory;
  p.gridDimY = 2;
  p.persistentBatchSize = 128;
  try {
    generate(only.segment(), p);
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find("the cluster exchange's"), std::string::npos) << error.message();
    EXPECT_NE(error.message().find("cluster_reduction false"), std::string::npos)
        << error.message();
  }
}

TEST_F(ReductionEmitterTest, BatchThatDoesNotCoverTheRowIsRefused) {
  const OnlySegment only = onlySegment("layer_norm.py");
  ReductionParams p = only.segment().params();
  p.persistentBatchSize = 1;
  p.blockDimX = 32;
  try {
    generate(only.segment(), p);
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_TRUE(contains(error.message(), "does not cover a row of 4096")) << error.message();
  }
}

}  // namespace
}  // namespace fuserlab::codegen

namespace fuserlab::codegen {
namespace {

// Issue 42 item 4: every segment of these corpus scripts gets a kernel for
// the default device at the sizes of their inputs blocks, and each kernel
// compiles with NVRTC. An input the segment reads only for its extents
// (`broadcast_in_dim(shape=tv1.shape())`) passes the schedulers' checks,
// which trace the inputs exprs read (scheduler::inputsAndOutputs); the
// reduction emitter refused it ("tv1 is not connected to the reduced
// tensor") until it gave such inputs no layout.
TEST(ReductionIssue42Test, CorpusReproducersCompileIntoKernels) {
  for (const char* file : {"issue42_rmsnorm_bwd_builder.py", "issue42_rmsnorm_bwd_direct.py",
                           "issue42_sum_over_broadcast_axis.py"}) {
    SCOPED_TRACE(file);
    const frontend::Script script =
        frontend::readScriptFile(fuserlab::test::sourceDir() + "/tests/frontend/corpus/" + file);
    ASSERT_TRUE(script.inputs.has_value());
    const auto device = scheduler::findBuiltinDevice("h100");
    ASSERT_TRUE(device.has_value());
    const runtime::Arguments args = frontend::makeInputShapes(*script.inputs);
    const runtime::CompiledFusion compiled =
        runtime::compileFusion(script.fusion(), compiler::CompileOptions{}, *device, args);
    const std::vector<runtime::SegmentKernel> kernels =
        runtime::generateSegmentKernels(compiled, *device, args);
    EXPECT_FALSE(kernels.empty());
    for (const runtime::SegmentKernel& segment : kernels) {
      SCOPED_TRACE(segment.name);
      ASSERT_TRUE(segment.kernel.has_value()) << segment.error;
      EXPECT_FALSE(runtime::compileWithNvrtc(*segment.kernel, 90).cubin.empty());
    }
  }
}

// The same refusal at its smallest: a sum of a broadcast whose shape comes
// from an input no expr reads. The kernel takes the input and never indexes it.
TEST(ReductionIssue42Test, InputReadOnlyForItsShapeIsNotIndexed) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.ops.broadcast_in_dim(T0, shape=T1.shape(), broadcast_dims=[0])
    T4 = fd.ops.mul(T3, T2)
    T5 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T5)
)"),
                                                "37:f32,37x250:f32,1x250:f32");
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_FALSE(runtime::compileWithNvrtc(kernel, 90).cubin.empty());
}

}  // namespace
}  // namespace fuserlab::codegen
