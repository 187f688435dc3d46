// Slice, cat and pad on the vectorized axis on the GPU against the CPU
// reference: the RoPE cat decided once per vector (aligned halves), halves
// that straddle vectors (per-lane branches), a head dimension that is not a
// multiple of the vector width (the element pass), pads on the innermost
// axis (aligned and not), a cat along an outer axis, and inputs whose
// layout fails the vector checks at run time.
#include "core/report/compile_report.h"
#include "core/scheduler/heuristic_provider.h"
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

// Rotary embedding on q [b, h, s, head] bf16 with cos/sin [s, head]: the
// rotated half is cat(-q[..., half:], q[..., :half]), as
// tests/perf/suite/rope_4x32x2048x128.py.
std::string rope(const std::vector<int64_t>& q, int64_t half) {
  const int64_t head = q[3];
  const std::string out = shape(q);
  return R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T3 = fd.ops.slice(T0, start_indices=[0, 0, 0, 0], end_indices=[)" +
         std::to_string(q[0]) + ", " + std::to_string(q[1]) + ", " + std::to_string(q[2]) + ", " +
         std::to_string(half) + R"(], strides=[1, 1, 1, 1])
T4 = fd.ops.slice(T0, start_indices=[0, 0, 0, )" +
         std::to_string(half) + "], end_indices=[" + std::to_string(q[0]) + ", " +
         std::to_string(q[1]) + ", " + std::to_string(q[2]) + ", " + std::to_string(head) +
         R"(], strides=[1, 1, 1, 1])
T5 = fd.ops.cast(T4, dtype=DataType.Float)
T6 = fd.ops.neg(T5)
T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)
T8 = fd.ops.cat([T7, T3], dim=3)
T9 = fd.ops.broadcast_in_dim(T1, shape=)" +
         out + R"(, broadcast_dims=[2, 3])
T10 = fd.ops.cast(T0, dtype=DataType.Float)
T11 = fd.ops.cast(T9, dtype=DataType.Float)
T12 = fd.ops.mul(T10, T11)
T13 = fd.ops.broadcast_in_dim(T2, shape=)" +
         out + R"(, broadcast_dims=[2, 3])
T14 = fd.ops.cast(T8, dtype=DataType.Float)
T15 = fd.ops.cast(T13, dtype=DataType.Float)
T16 = fd.ops.mul(T14, T15)
T17 = fd.ops.add(T12, T16)
T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)
fd.add_output(T18)
)";
}

class GpuCatPadTest : public GpuTest {
 protected:
  void runRope(const std::vector<int64_t>& q, int64_t half) {
    SCOPED_TRACE(shape(q) + " half " + std::to_string(half));
    define(rope(q, half));
    runAndCheck({random(DataType::BFloat16, q), random(DataType::BFloat16, {q[2], q[3]}),
                 random(DataType::BFloat16, {q[2], q[3]})});
  }
};

TEST_F(GpuCatPadTest, RopeHalvesAlignedToTheVector) {
  runRope({2, 4, 16, 128}, 64);
  FL_SKIP_IF_UNAVAILABLE();
  runRope({1, 2, 33, 64}, 32);
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuCatPadTest, RopeHalvesThatStraddleVectors) {
  // 60 + 68: the boundary falls inside a vector of 8.
  runRope({2, 4, 16, 128}, 60);
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuCatPadTest, RopeHeadNotAMultipleOfTheVector) {
  // 100 per row: the vectorized pass's checks fail, the element pass runs.
  runRope({2, 4, 16, 100}, 50);
  FL_SKIP_IF_UNAVAILABLE();
}

// Rows unrolled over the heads: the cos/sin tables (broadcast along batch and
// heads) are loaded once per chunk and shared by the rows, including a last
// block whose rows run past the 2*3 heads.
TEST_F(GpuCatPadTest, RopeOuterUnrolledRowsShareTheTableLoads) {
  struct Shape {
    int64_t unrollOuter, unrollInner, blockDimY;
  };
  for (const Shape s : {Shape{4, 1, 1}, Shape{2, 2, 2}, Shape{8, 1, 1}, Shape{4, 2, 1}}) {
    scheduler::PointwiseParams p;
    p.vectorizationFactor = 8;
    p.breakPoint = 2;
    p.blockDimX = 64;
    p.blockDimY = s.blockDimY;
    p.unrollFactorOuter = s.unrollOuter;
    p.unrollFactorInner = s.unrollInner;
    const FixedParams fixed(scheduler::SchedulerType::Pointwise, p);
    useProvider(&fixed);
    SCOPED_TRACE(p.toString());
    runRope({2, 3, 16, 128}, 64);
    FL_SKIP_IF_UNAVAILABLE();
    ASSERT_NE(executor().lastReport(), nullptr);
    EXPECT_EQ(executor().lastReport()->segments.at(0).paramsSource, "tuner");
  }
  useProvider(nullptr);
}

TEST_F(GpuCatPadTest, RopeMisalignedInput) {
  // q starts 8 bytes past an aligned address: no vector access may be used.
  define(rope({2, 4, 16, 128}, 64));
  runAndCheck({randomAtOffset(DataType::BFloat16, {2, 4, 16, 128}, 4),
               random(DataType::BFloat16, {16, 128}), random(DataType::BFloat16, {16, 128})});
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuCatPadTest, PadOnTheInnermostAxis) {
  for (const auto& [left, right] : std::vector<std::pair<int, int>>{{8, 16}, {3, 5}, {0, 24}}) {
    SCOPED_TRACE("pad " + std::to_string(left) + ", " + std::to_string(right));
    const int64_t width = 40 + left + right;
    define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.ops.pad(T0, [)" +
           std::to_string(left) + ", " + std::to_string(right) + R"(, 0, 0], None)
T3 = fd.ops.cast(T2, dtype=DataType.Float)
T4 = fd.ops.cast(T1, dtype=DataType.Float)
T5 = fd.ops.mul(T3, T4)
T6 = fd.ops.add(T5, T4)
T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)
fd.add_output(T7)
)");
    runAndCheck({random(DataType::BFloat16, {77, 40}), random(DataType::BFloat16, {77, width})});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuCatPadTest, CatAlongAnOuterAxis) {
  // The branch is on the row: the same for every lane of a vector.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.cat([T0, T1], dim=0)
T3 = fd.ops.sigmoid(T2)
fd.add_output(T3)
)");
  runAndCheck({random(DataType::Float, {37, 256}), random(DataType::Float, {91, 256})});
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuCatPadTest, CatOfInputsOnTheInnermostAxis) {
  // Two inputs side by side: boundaries 64 (aligned) and 61 (not).
  for (int64_t first : {64, 61}) {
    SCOPED_TRACE("first " + std::to_string(first));
    define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
T2 = fd.ops.cat([T0, T1], dim=1)
T3 = fd.ops.cast(T2, dtype=DataType.Float)
T4 = fd.ops.mul(T3, T3)
T5 = fd.ops.cast(T4, dtype=DataType.Half)
fd.add_output(T5)
)");
    runAndCheck(
        {random(DataType::Half, {129, first}), random(DataType::Half, {129, 128 - first + 64})});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

}  // namespace
}  // namespace fuserlab::gpu_test
