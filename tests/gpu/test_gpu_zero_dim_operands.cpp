// 0-dim tensor operands on the GPU against the CPU reference: a GPU 0-dim
// tensor (one element, read at index 0 whatever the output index) and a CPU
// scalar tensor (is_cpu=True, a by-value kernel parameter) beside tensors of
// rank 3 in unary, binary, predicate, where, lerp and clamp ops, in
// pointwise, reduction and inner persistent kernels.
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

class GpuZeroDimOperandsTest : public GpuTest {};

TEST_F(GpuZeroDimOperandsTest, PointwiseWithAGpuAndACpuScalarTensor) {
  define(R"(
T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)
T3 = fd.ops.mul(T0, T1)
T4 = fd.ops.sub(T1, T2)
T5 = fd.ops.where(fd.ops.gt(T3, T2), T0, T4)
T6 = fd.ops.lerp(T5, T0, T2)
T7 = fd.ops.clamp(T0, fd.define_scalar(-0.5, dtype=DataType.Double), fd.define_scalar(0.5, dtype=DataType.Double))
T8 = fd.ops.add(T6, fd.ops.neg(T7))
fd.add_output(T8)
fd.add_output(T7)
)");
  for (std::vector<int64_t> sizes : std::vector<std::vector<int64_t>>{{4, 8, 128}, {3, 5, 7}}) {
    SCOPED_TRACE(shape(sizes));
    runAndCheck({random(DataType::Float, {}), random(DataType::Float, sizes),
                 random(DataType::Double, {})});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

// Issue 42 1(b): an output aliased into a 0-dim GPU input (T4 = T2 + 1
// written back into T2). The input stayed on the host and the kernel wrote
// T4 through its host address: an illegal address on an H200. Alone it runs
// now; beside a multiply by T2 broadcast over the kernel the in-place write
// would race with the other threads' reads (seen: 24576 of 4M products used
// the updated value): the update now goes to a fresh buffer, copied into T2
// after the kernel (in_place_writes.h), and the products use the old value.
TEST_F(GpuZeroDimOperandsTest, AnOutputAliasedIntoAZeroDimInput) {
  define(R"(
T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
T4 = fd.ops.add(T2, 1.0)
fd.add_output(T4, alias_input=T2)
)");
  runAndCheck({random(DataType::Float, {})});
  FL_SKIP_IF_UNAVAILABLE();
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
T3 = fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[])
T5 = fd.ops.mul(T0, T3)
T4 = fd.ops.add(T2, 1.0)
fd.add_output(T5)
fd.add_output(T4, alias_input=T2)
)");
  runAndCheck({random(DataType::Float, {2048, 2048}), random(DataType::Float, {})});
}

TEST_F(GpuZeroDimOperandsTest, APythonNumberForACpuScalarTensor) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=True)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.div(T2, T1)
T4 = fd.ops.cast(T3, dtype=DataType.BFloat16)
fd.add_output(T4)
)");
  runAndCheck({random(DataType::BFloat16, {64, 1000}), ir::ScalarValue(0.75)});
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuZeroDimOperandsTest, ReductionAndInnerPersistentKernels) {
  // An RMSNorm whose eps is a CPU scalar tensor and whose scale is a GPU
  // 0-dim tensor; then the same with the rows summed to a reduction.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)
T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
T3 = fd.ops.cast(T0, dtype=DataType.Float)
T4 = fd.ops.mul(T3, T3)
T5 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
T6 = fd.ops.broadcast(T5, is_broadcast_dim=[False, True])
T7 = fd.ops.add(T6, T1)
T8 = fd.ops.rsqrt(T7)
T9 = fd.ops.mul(T3, T8)
T10 = fd.ops.mul(T9, T2)
T11 = fd.ops.cast(T10, dtype=DataType.BFloat16)
fd.add_output(T11)
)");
  Tensor eps = Tensor::empty(DataType::Double, {});
  eps.fill(1e-5);
  runAndCheck({random(DataType::BFloat16, {256, 4096}), eps, random(DataType::Float, {})});
  FL_SKIP_IF_UNAVAILABLE();
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)
T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
T3 = fd.ops.mul(T0, T2)
T4 = fd.ops.where(fd.ops.gt(T3, T1), T3, T2)
T5 = fd.ops.sum(T4, dims=[2], keepdim=False, dtype=DataType.Null)
fd.add_output(T5)
)");
  runAndCheck({random(DataType::Float, {8, 16, 999}), random(DataType::Double, {}),
               random(DataType::Float, {})});
  FL_SKIP_IF_UNAVAILABLE();
}

}  // namespace
}  // namespace fuserlab::gpu_test
