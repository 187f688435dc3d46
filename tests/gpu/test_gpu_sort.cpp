// argsort and topk on the GPU (the sort kernel, core/codegen/sort_emitter.h)
// against the CPU reference, on random non-zero inputs: lines of 1, an odd
// length, a power of two and the longest the kernel holds (kMaxSortRow),
// along an outer and the innermost axis, both directions, in Half,
// BFloat16, Float, Double, Int32 and Int. Integer inputs in [1, 10) and
// floats rounded to halves repeat values, so equal values must come in
// position order (the reference's stable sort); sqrt of normal inputs is
// NaN about half the time, which both order as the largest. The order is a
// total order on (value, position), so positions and values are compared
// exactly. Each test asserts that the kernel ran: these were
// CPU-reference-only segments before.
#include "core/scheduler/pointwise/sort_segment.h"
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

class GpuSortTest : public GpuTest {
 protected:
  void expectRan() { ASSERT_FALSE(unavailable()) << unavailableReason(); }
};

const std::vector<int64_t> kLengths = {1, 37, 256, scheduler::kMaxSortRow};

TEST_F(GpuSortTest, ArgsortEveryDtypeAndLengthWithTies) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Double, is_cpu=False)
T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
T5 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
T6 = fd.ops.floor(fd.ops.mul(T2, 2.0))
fd.add_output(fd.ops.argsort(T0, dim=1))
fd.add_output(fd.ops.argsort(T1, dim=1, descending=True))
fd.add_output(fd.ops.argsort(T6, dim=1))
fd.add_output(fd.ops.argsort(T3, dim=1, descending=True))
fd.add_output(fd.ops.argsort(T4, dim=1))
fd.add_output(fd.ops.argsort(T5, dim=1, descending=True))
)");
  for (const int64_t length : kLengths) {
    SCOPED_TRACE(length);
    const std::vector<int64_t> sizes = {5, length};
    runAndCheck({random(DataType::Half, sizes), random(DataType::BFloat16, sizes),
                 random(DataType::Float, sizes), random(DataType::Double, sizes),
                 random(DataType::Int32, sizes), random(DataType::Int, sizes)});
    expectRan();
  }
}

TEST_F(GpuSortTest, ArgsortAlongAnOuterAxisWithNaN) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.sqrt(T0)
fd.add_output(fd.ops.argsort(T1, dim=1))
fd.add_output(fd.ops.argsort(T1, dim=0, descending=True))
)");
  for (const std::vector<int64_t>& sizes :
       std::vector<std::vector<int64_t>>{{3, 37, 5}, {64, 2, 33}, {1, 1, 1}}) {
    SCOPED_TRACE(shape(sizes));
    runAndCheck({random(DataType::Float, sizes)});
    expectRan();
  }
}

TEST_F(GpuSortTest, TopkLargestAndSmallestWithTies) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Double, is_cpu=False)
T3 = fd.ops.sqrt(T2)
T4, T5 = fd.ops.topk(T0, 1, dim=1)
T6, T7 = fd.ops.topk(T1, 1, dim=1, largest=False)
T8, T9 = fd.ops.topk(T3, 1, dim=-1)
fd.add_output(T4)
fd.add_output(T5)
fd.add_output(T6)
fd.add_output(T7)
fd.add_output(T8)
fd.add_output(T9)
)");
  for (const int64_t length : kLengths) {
    SCOPED_TRACE(length);
    const std::vector<int64_t> sizes = {9, length};
    runAndCheck({random(DataType::BFloat16, sizes), random(DataType::Int32, sizes),
                 random(DataType::Double, sizes)});
    expectRan();
  }
}

TEST_F(GpuSortTest, TopkWithASymbolicKBetweenPointwiseKernels) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
S1 = fd.define_scalar(None, dtype=DataType.Int)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.round(fd.ops.mul(T2, 4.0))
T4, T5 = fd.ops.topk(T3, S1, dim=0, largest=False)
T6 = fd.ops.exp(T4)
fd.add_output(T6)
fd.add_output(T5)
)");
  for (const int64_t k : {int64_t{1}, int64_t{5}, int64_t{40}}) {
    SCOPED_TRACE(k);
    runAndCheck({random(DataType::Half, {40, 300}), ir::ScalarValue(k)});
    expectRan();
  }
}

// topk whose positions, or values, nothing reads: the kernel writes the other
// alone, and it matches the CPU reference.
TEST_F(GpuSortTest, TopkWithOneOfItsOutputsUnused) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.neg(T0)
T2, T3 = fd.ops.topk(T1, 3, dim=-1, largest=False)
T4, T5 = fd.ops.topk(T0, 2, dim=0)
fd.add_output(T2)
fd.add_output(T5)
)");
  runAndCheck({random(DataType::Float, {37, 300})});
  expectRan();
}

// A line longer than the kernel holds stays on the CPU reference: the cuda
// backend refuses it, naming the op and the limit.
TEST_F(GpuSortTest, ALineLongerThanTheKernelHoldsIsRefusedWithTheLimit) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
fd.add_output(fd.ops.argsort(T0, dim=1))
)");
  runtime::GpuExecutor executor(fusion(), 0, compiler::CompileOptions{}, &cache());
  runtime::Arguments inputs = {random(DataType::Float, {2, scheduler::kMaxSortRow + 1})};
  try {
    runtime::runOnGpu(executor, inputs, runtime::GpuRunOptions{});
    ADD_FAILURE() << "an argsort of lines longer than the sort kernel holds ran on the GPU";
  } catch (const runtime::KernelUnavailable& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("unavailable on the cuda backend"), std::string::npos) << message;
    EXPECT_NE(message.find("fd.ops.argsort"), std::string::npos) << message;
    EXPECT_NE(message.find("sorts lines of 4097 elements, more than the 4096"), std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace fuserlab::gpu_test
