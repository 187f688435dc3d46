// The scan kernel (cumsum, cumprod, cummin, cummax) on the GPU against the
// CPU reference: along an outer, a middle and the innermost axis, in Half,
// Float, Int32 and Int, with an init and a NaN, and beside pointwise kernels.
// The kernel walks each line in the reference's order and compute dtype, so
// its results are the reference's.
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

class GpuScanTest : public GpuTest {};

TEST_F(GpuScanTest, EveryScanAlongEveryAxis) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Half, is_cpu=False)
fd.add_output(fd.ops.cumsum(T0, 0))
fd.add_output(fd.ops.cumprod(T0, 1))
fd.add_output(fd.ops.cummax(T0, -1))
fd.add_output(fd.ops.cummin(T1, 1))
fd.add_output(fd.ops.cumsum(T1, 2, init=0.5))
)");
  for (const std::vector<int64_t>& sizes :
       std::vector<std::vector<int64_t>>{{8, 16, 33}, {3, 700, 5}}) {
    SCOPED_TRACE(shape(sizes));
    runAndCheck({random(DataType::Float, sizes), random(DataType::Half, sizes)});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuScanTest, IntegerScansWrapAsTheReference) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
fd.add_output(fd.ops.cumsum(T0, 1))
fd.add_output(fd.ops.cumprod(T0, 0))
fd.add_output(fd.ops.cummax(T1, 1))
fd.add_output(fd.ops.cumsum(T1, 0))
)");
  runAndCheck({random(DataType::Int32, {64, 257}), random(DataType::Int, {64, 257})});
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuScanTest, AScanBetweenPointwiseKernels) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.exp(T1)
T3 = fd.ops.cumsum(T2, 1)
T4 = fd.ops.div(T2, T3)
T5 = fd.ops.sub(T1, fd.ops.cummax(T1, 0))
fd.add_output(fd.ops.cast(T4, dtype=DataType.BFloat16))
fd.add_output(T5)
)");
  runAndCheck({random(DataType::BFloat16, {128, 1000})});
  FL_SKIP_IF_UNAVAILABLE();
}

}  // namespace
}  // namespace fuserlab::gpu_test
