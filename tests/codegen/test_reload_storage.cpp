// Inner persistent kernels that keep nothing between passes
// (persistent_storage reload): each pass reads the segment's inputs again
// (from L2 where the block read them shortly before) and recomputes the
// buffers from them, so a long row costs no registers or shared memory.
// What the kernel reads in each pass, and which params the checks refuse.
#include <gtest/gtest.h>

#include <string>

#include "core/cuda/nvrtc_compiler.h"
#include "core/scheduler/reduction/launch_shape.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

using scheduler::PersistentStorage;
using scheduler::ReductionParams;
using Pinned = PinnedParams<ReductionParams>;

// A LayerNorm of a half input (its buffer, the float cast, projects to the
// input) or of a float one (the buffer is the input itself).
std::string layerNorm(const std::string& dtype) {
  return script(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType." + dtype +
      ", is_cpu=False)\n"
      "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T2, T3 = fd.ops.var_mean(T1, dims=[1], correction=0, keepdim=True)\n"
      "    T4 = fd.ops.rsqrt(fd.ops.add(T2, 1e-05))\n"
      "    T5 = fd.ops.mul(fd.ops.sub(T1, T3), T4)\n"
      "    fd.add_output(fd.ops.cast(T5, dtype=DataType." +
      dtype + "))\n");
}

ReductionParams reload(int64_t rows, int64_t length, int64_t vectorize, int64_t threads,
                       bool project) {
  ReductionParams p;
  p.fastestDimReduction = true;
  p.persistentKernel = true;
  p.persistentStorage = PersistentStorage::Reload;
  p.projectPersistentBuffers = project;
  p.vectorizationFactor = vectorize;
  p.blockDimX = threads;
  // Shifted rows: the whole aligned chunks (reload shifts rows as registers do).
  p.persistentBatchSize =
      scheduler::ceilDiv(scheduler::rowChunks(length, vectorize, length % vectorize != 0), threads);
  p.gridDimX = rows;
  p.crossBlockReduction = true;
  return p;
}

TEST(ReloadStorageTest, EachPassReadsTheInputAgain) {
  // 40960 halves a row, more than a block's registers or shared memory
  // hold: the mean's pass, the squared deviations' and the output's each
  // load x; nothing is declared to keep it.
  const Pinned pinned(scheduler::SchedulerType::InnerPersistent, reload(64, 40960, 8, 512, true));
  const CompiledScript compiled = compileScript(layerNorm("Half"), "64x40960:f16", &pinned, "h200");
  EXPECT_EQ(compiled.compiled.report.segments.at(0).paramsNote, "");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "read again each pass as 10 chunks of 8 per thread")) << k.source;
  EXPECT_EQ(count(k.source, "T0_ld = fl::load_vector<8>(T0.data + "), 3) << k.source;
  EXPECT_FALSE(contains(k.source, "S_T0")) << k.source;
  // The block reduction's scratch only: a partial for each of 16 warps.
  EXPECT_EQ(k.launch.dynamicSharedMemoryBytes, 64);
  EXPECT_NO_THROW(runtime::compileWithNvrtc(k, 90)) << k.source;
}

TEST(ReloadStorageTest, ShiftedRowsReadTheirHeadAndTailAgainToo) {
  const Pinned pinned(scheduler::SchedulerType::InnerPersistent, reload(5, 39690, 8, 256, true));
  const CompiledScript compiled = compileScript(layerNorm("Half"), "5x39690:f16", &pinned, "h200");
  EXPECT_EQ(compiled.compiled.report.segments.at(0).paramsNote, "");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_TRUE(contains(k.source, "const bool ok = row_ok && e < extra;")) << k.source;
  EXPECT_NO_THROW(runtime::compileWithNvrtc(k, 90)) << k.source;
}

TEST(ReloadStorageTest, BuffersThatAreNoInputNeedProjection) {
  // Half input, no projection: the float cast would be kept, and reload
  // keeps nothing: refused, the heuristic's kernel instead.
  const Pinned half(scheduler::SchedulerType::InnerPersistent, reload(64, 4096, 8, 128, false));
  const CompiledScript refused = compileScript(layerNorm("Half"), "64x4096:f16", &half, "h200");
  EXPECT_NE(refused.compiled.report.segments.at(0).paramsNote.find(
                "persistent_storage reload reads the segment's inputs again each pass and "
                "computes the buffers from them, but project_persistent_buffers is not set"),
            std::string::npos)
      << refused.compiled.report.segments.at(0).paramsNote;
  // A float input is its own buffer: read again as it is.
  const Pinned single(scheduler::SchedulerType::InnerPersistent, reload(64, 4096, 4, 128, false));
  const CompiledScript accepted = compileScript(layerNorm("Float"), "64x4096:f32", &single, "h200");
  EXPECT_EQ(accepted.compiled.report.segments.at(0).paramsNote, "");
  EXPECT_TRUE(contains(onlyKernel(accepted).source, "read again each pass"));
}

}  // namespace
}  // namespace fuserlab::codegen
