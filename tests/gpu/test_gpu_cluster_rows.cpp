// Inner persistent kernels whose rows are split over the blocks of a
// thread-block cluster (grid_dim_y > 1 with cluster_reduction, sm_90+),
// against the CPU reference on random non-zero inputs, with the params
// pinned as the tuner or the database would give them: whole and shifted
// rows, rows of two thread rows a block, a last block past the rows,
// clusters of 2 to 8, rows kept in shared memory, and a softmax (a max, then a sum of exps, in two
// passes).
#include "core/cuda/cuda_device.h"
#include "core/scheduler/reduction/launch_shape.h"
#include "core/scheduler/reduction/reduction_params.h"
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

using scheduler::PersistentStorage;
using scheduler::ReductionParams;

const char* const kLayerNorm =
    "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, "
    "is_cpu=False)\n"
    "T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
    "T2, T3 = fd.ops.var_mean(T1, dims=[1], correction=0, keepdim=True)\n"
    "T4 = fd.ops.rsqrt(fd.ops.add(T2, 1e-05))\n"
    "T5 = fd.ops.mul(fd.ops.sub(T1, T3), T4)\n"
    "fd.add_output(fd.ops.cast(T5, dtype=DataType.Half))\n"
    "fd.add_output(T3)\n"
    "fd.add_output(T4)\n";

const char* const kSoftmax =
    "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
    "is_cpu=False)\n"
    "T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
    "T2 = fd.ops.max(T1, dims=[1], keepdim=True)\n"
    "T3 = fd.ops.exp(fd.ops.sub(T1, T2))\n"
    "T4 = fd.ops.sum(T3, dims=[1], keepdim=True)\n"
    "fd.add_output(fd.ops.cast(fd.ops.div(T3, T4), dtype=DataType.BFloat16))\n";

struct Split {
  int64_t rows, length, vectorize, threadsX, threadsY, ranks, gridX;
  PersistentStorage storage;
};

ReductionParams splitParams(const Split& s, bool shifted) {
  ReductionParams p;
  p.fastestDimReduction = true;
  p.persistentKernel = true;
  p.persistentStorage = s.storage;
  p.vectorizationFactor = s.vectorize;
  p.blockDimX = s.threadsX;
  p.blockDimY = s.threadsY;
  const int64_t chunks = scheduler::rowChunks(s.length, s.vectorize, shifted);
  p.persistentBatchSize = scheduler::ceilDiv(chunks, s.threadsX * s.ranks);
  p.gridDimX = s.gridX > 0 ? s.gridX : scheduler::ceilDiv(s.rows, s.threadsY);
  p.gridDimY = s.ranks;
  p.crossBlockReduction = s.threadsX > 1;
  p.crossGridReduction = true;
  p.clusterReduction = true;
  return p;
}

class GpuClusterRowsTest : public GpuTest {
 protected:
  void runSplit(const char* body, DataType dtype, const Split& s) {
    const std::optional<scheduler::DeviceSpec> device = runtime::queryCudaDevice(0);
    if (!device || device->computeCapabilityMajor < 9) {
      GTEST_SKIP() << "thread-block clusters need sm_90 or later";
    }
    const bool shifted = s.storage == PersistentStorage::Registers && s.length % s.vectorize != 0;
    const FixedParams fixed(scheduler::SchedulerType::InnerPersistent, splitParams(s, shifted));
    useProvider(&fixed);
    define(body);
    SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.length) + " " +
                 splitParams(s, shifted).toString());
    const runtime::Arguments inputs = {random(dtype, {s.rows, s.length})};
    for (int launch = 0; launch < 2; ++launch) {
      const runtime::GpuRunStats stats = runAndCheck(inputs);
      ASSERT_FALSE(unavailable()) << unavailableReason();
      EXPECT_EQ(stats.kernelLaunches, 1);
      ASSERT_NE(executor().lastReport(), nullptr);
      EXPECT_EQ(executor().lastReport()->segments.at(0).paramsSource, "tuner")
          << "the pinned split, not the heuristic's fallback";
    }
    useProvider(nullptr);
  }
};

TEST_F(GpuClusterRowsTest, LayerNormRowsSplitOverAClusterMatchTheReference) {
  const auto R = PersistentStorage::Registers;
  for (const Split& s : {
           Split{37, 4096, 8, 128, 1, 4, 0, R},   // whole rows, one chunk a thread
           Split{5, 39690, 4, 256, 1, 8, 0, R},   // shifted rows, head and tail in rank 0
           Split{7, 1000, 4, 64, 2, 2, 0, R},     // two rows a block, the last past the rows
           Split{10, 40960, 8, 256, 1, 5, 0, R},  // clusters of 5
           Split{6, 12288, 4, 128, 1, 3, 0, PersistentStorage::SharedMemory},
       }) {
    runSplit(kLayerNorm, DataType::Half, s);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

TEST_F(GpuClusterRowsTest, SoftmaxRowsSplitOverAClusterMatchTheReference) {
  runSplit(kSoftmax, DataType::BFloat16,
           Split{9, 16384, 8, 256, 1, 4, 0, PersistentStorage::Registers});
  if (HasFatalFailure() || IsSkipped()) return;
  runSplit(kSoftmax, DataType::BFloat16,
           Split{11, 3001, 8, 64, 1, 2, 0, PersistentStorage::Registers});
}

}  // namespace
}  // namespace fuserlab::gpu_test
