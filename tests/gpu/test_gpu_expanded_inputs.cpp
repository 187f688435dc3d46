// Expanded inputs on the GPU against the CPU reference: an input axis
// declared as an expanded broadcast (contiguity None with shape -1, or a
// stride-0 axis in the sizes/strides form) and bound to a stride-0 view whose
// storage holds only the unexpanded elements, so a kernel that walked the
// expanded axis with its extent would read out of bounds. Pointwise kernels,
// reductions over the expanded axis and over the others, and a fusion whose
// pointwise op makes the reduced expanded axis concrete (two segments).
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

class GpuExpandedInputsTest : public GpuTest {
 protected:
  //! A random `dtype` tensor of `storage` elements viewed as `sizes` with
  //! `strides` (0 on the expanded axes).
  Tensor expanded(DataType dtype, int64_t storage, std::vector<int64_t> sizes,
                  std::vector<int64_t> strides) {
    return random(dtype, {storage}).asStrided(std::move(sizes), std::move(strides), 0);
  }

  //! The schedulers of the last run's segments, in order.
  std::vector<std::string> schedulers() {
    std::vector<std::string> out;
    if (executor().lastReport() == nullptr) return out;
    for (const report::SegmentReport& segment : executor().lastReport()->segments) {
      out.push_back(segment.scheduler);
    }
    return out;
  }
};

TEST_F(GpuExpandedInputsTest, PointwiseReadsTheExpandedRowWithStrideZero) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
T2 = fd.ops.cast(T1, dtype=DataType.Float)
T3 = fd.ops.mul(T0, T2)
T4 = fd.ops.cast(T3, dtype=DataType.BFloat16)
fd.add_output(T4)
)");
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{64, 4096}, {33, 1000}, {5, 3}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    runAndCheck({expanded(DataType::Float, cols, {rows, cols}, {0, 1}),
                 random(DataType::BFloat16, {rows, cols})});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuExpandedInputsTest, SizesAndStridesFormExpandedAlongTheInnerAxis) {
  // A column expanded along the rows' inner axis (sizes [rows, cols],
  // strides [1, 0]), and a 3-D input expanded in the middle.
  define(R"(
T0 = fd.define_tensor(sizes=[48, 1024], strides=[1, 0], dtype=DataType.Float)
T1 = fd.define_tensor(sizes=[48, 1024], strides=[1024, 1], dtype=DataType.Float)
T2 = fd.define_tensor(sizes=[4, 12, 1024], strides=[1024, 0, 1], dtype=DataType.Float)
T3 = fd.ops.sub(T1, T0)
T4 = fd.ops.reshape(T3, new_shape=[4, 12, 1024])
T5 = fd.ops.mul(T4, T2)
fd.add_output(T5)
)");
  runAndCheck({expanded(DataType::Float, 48, {48, 1024}, {1, 0}),
               random(DataType::Float, {48, 1024}),
               expanded(DataType::Float, 4 * 1024, {4, 12, 1024}, {1024, 0, 1})});
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuExpandedInputsTest, ReductionsOverTheExpandedAxisAndTheOthers) {
  // RMSNorm-backward style: a weight expanded along the rows, multiplied by
  // the rows and summed over them (outer) and along them (inner); and the
  // expanded input summed over its own expanded axis.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T2 = fd.ops.mul(T0, T1)
T3 = fd.ops.sum(T2, dims=[0], keepdim=False, dtype=DataType.Null)
fd.add_output(T3)
)");
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{256, 1024}, {37, 999}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    runAndCheck({expanded(DataType::Float, cols, {rows, cols}, {0, 1}),
                 random(DataType::Float, {rows, cols})});
    FL_SKIP_IF_UNAVAILABLE();
  }
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T2 = fd.ops.mul(T0, T1)
T3 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T3)
)");
  runAndCheck(
      {expanded(DataType::Float, 2048, {96, 2048}, {0, 1}), random(DataType::Float, {96, 2048})});
  FL_SKIP_IF_UNAVAILABLE();
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T1 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
fd.add_output(T1)
)");
  runAndCheck({expanded(DataType::Float, 1000, {64, 1000}, {0, 1})});
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuExpandedInputsTest, PointwiseMakingTheReducedExpandedAxisConcreteRunsAsTwoSegments) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T2 = fd.ops.add(T0, T1)
T3 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
fd.add_output(T3)
)");
  runAndCheck(
      {expanded(DataType::Float, 1024, {64, 1024}, {0, 1}), random(DataType::Float, {64, 1024})});
  FL_SKIP_IF_UNAVAILABLE();
  EXPECT_EQ(schedulers(), (std::vector<std::string>{"pointwise", "reduction"}));
}

TEST_F(GpuExpandedInputsTest, ASizeOneTensorForAnExpandedAxis) {
  // nvFuser binds size 1 where an axis is declared expanded.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
T1 = fd.ops.exp(T0)
fd.add_output(T1)
)");
  runAndCheck({random(DataType::Float, {1, 777})});
  FL_SKIP_IF_UNAVAILABLE();
}

}  // namespace
}  // namespace fuserlab::gpu_test
