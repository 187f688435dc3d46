// The sort kernel (core/codegen/sort_emitter.h): argsort and topk each run
// in a pointwise segment of their own, one block per line, which NVRTC
// compiles for every dtype, along an outer, a middle and the innermost
// axis, for lines of 1, odd, power-of-two and the longest length the kernel
// holds, on a 0-dim tensor and with a symbolic k; a longer line stays an
// expr_eval (CPU reference) segment; every other scheduler refuses a
// segment holding a sort.
#include <string>
#include <vector>

#include "core/cuda/nvrtc_compiler.h"
#include "core/scheduler/pointwise/sort_segment.h"
#include "core/scheduler/registry.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

using scheduler::SchedulerType;

// Every kernel of `compiled` is generated and compiles; returns how many
// were sort kernels.
int expectSortKernelsCompile(const CompiledScript& compiled) {
  return static_cast<int>(expectKernelsCompile(compiled, "pointwise (sort)").size());
}

std::string shortName(const std::string& dtype) {
  return dtype == "Half"       ? "f16"
         : dtype == "BFloat16" ? "bf16"
         : dtype == "Float"    ? "f32"
         : dtype == "Double"   ? "f64"
         : dtype == "Int32"    ? "i32"
         : dtype == "Int"      ? "i64"
                               : "bool";
}

TEST(SortKernelTest, EveryDtypeAlongEveryAxisCompiles) {
  for (const std::string dtype : {"Half", "BFloat16", "Float", "Double", "Int32", "Int", "Bool"}) {
    SCOPED_TRACE(dtype);
    const CompiledScript compiled = compileScript(
        script("    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
               "dtype=DataType." +
               dtype +
               ")\n"
               "    fd.add_output(fd.ops.argsort(T0, dim=0))\n"
               "    fd.add_output(fd.ops.argsort(T0, dim=1, descending=True))\n"
               "    T1, T2 = fd.ops.topk(T0, 3, dim=-1)\n"
               "    fd.add_output(T1)\n"
               "    fd.add_output(T2)\n"
               "    T3, T4 = fd.ops.topk(T0, 7, dim=1, largest=False)\n"
               "    fd.add_output(T3)\n"
               "    fd.add_output(T4)\n"),
        "6x40x5:" + shortName(dtype));
    for (const auto& group : compiled.compiled.segmented->groups()) {
      EXPECT_EQ(group.choice.type, SchedulerType::Pointwise)
          << compiled.compiled.segmented->toString();
    }
    EXPECT_EQ(expectSortKernelsCompile(compiled), 4);
  }
}

TEST(SortKernelTest, EveryLineLengthUpToTheLongestCompiles) {
  // Double and Int take 8-byte keys: 4096 of them and their positions fill
  // the 48 KiB of static shared memory.
  for (const int64_t length : {int64_t{1}, int64_t{37}, int64_t{256}, scheduler::kMaxSortRow}) {
    for (const std::string dtype : {"Double", "Int", "Half"}) {
      SCOPED_TRACE(dtype + " " + std::to_string(length));
      const CompiledScript compiled =
          compileScript(script("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                               "dtype=DataType." +
                               dtype +
                               ")\n"
                               "    fd.add_output(fd.ops.argsort(T0, dim=1, descending=True))\n"
                               "    T1, T2 = fd.ops.topk(T0, 1, dim=1)\n"
                               "    fd.add_output(T1)\n"
                               "    fd.add_output(T2)\n"),
                        "3x" + std::to_string(length) + ":" + shortName(dtype));
      EXPECT_EQ(expectSortKernelsCompile(compiled), 2);
    }
  }
}

TEST(SortKernelTest, A0DimSortAndASymbolicKCompile) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    fd.add_output(fd.ops.argsort(T0, dim=0))
    T3, T4 = fd.ops.topk(T0, 1, dim=-1)
    fd.add_output(T3)
    fd.add_output(T4)
    T5, T6 = fd.ops.topk(T1, S2, dim=0, largest=False)
    fd.add_output(T5)
    fd.add_output(T6)
)"),
                                                ":f32,20x6:bf16,5");
  EXPECT_EQ(expectSortKernelsCompile(compiled), 3);
  for (const runtime::SegmentKernel& segment : compiled.kernels) {
    ASSERT_TRUE(segment.kernel.has_value());
    if (!contains(segment.kernel->source, "topk(T1, ")) continue;
    // k is read from the values' size, not built in.
    EXPECT_TRUE(contains(segment.kernel->source, "const int written = (int)T"))
        << segment.kernel->source;
  }
}

// topk with only its values, or only its positions, read past the segment:
// the unused one is no kernel output, and the kernel writes the other alone
// (fuzz_compile found the values-only case asserting).
TEST(SortKernelTest, TopkWithOneOfItsOutputsUnusedCompiles) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.neg(T0)
    T2, T3 = fd.ops.topk(T1, 3, dim=-1, largest=False)
    T4, T5 = fd.ops.topk(T0, 2, dim=0)
    fd.add_output(T2)
    fd.add_output(T5)
)"),
                                                "4x8:f32");
  EXPECT_EQ(expectSortKernelsCompile(compiled), 2);
  int valuesOnly = 0;
  int positionsOnly = 0;
  for (const runtime::SegmentKernel& segment : compiled.kernels) {
    ASSERT_TRUE(segment.kernel.has_value());
    const std::string& source = segment.kernel->source;
    if (!contains(source, "pointwise (sort)")) continue;
    // Positions are written as `(int64_t)p`, values read from the input at p.
    const bool writesPositions = contains(source, "] = (int64_t)p;");
    const bool writesValues = contains(source, "(index_t)(p) * ");
    valuesOnly += writesValues && !writesPositions ? 1 : 0;
    positionsOnly += writesPositions && !writesValues ? 1 : 0;
    EXPECT_TRUE(contains(source, "const int written = (int)T")) << source;
  }
  EXPECT_EQ(valuesOnly, 1);
  EXPECT_EQ(positionsOnly, 1);
}

TEST(SortKernelTest, ALineLongerThanTheKernelHoldsStaysOnTheCpuReference) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.exp(T0)
    fd.add_output(fd.ops.argsort(T1, dim=1))
)"),
                                                "2x4097:f32");
  int exprEval = 0;
  for (const auto& group : compiled.compiled.segmented->groups()) {
    if (group.choice.type != SchedulerType::ExprEval) continue;
    ++exprEval;
    EXPECT_EQ(group.exprs.size(), 1u);
    EXPECT_EQ(group.exprs[0]->type(), ir::ExprType::Argsort);
  }
  EXPECT_EQ(exprEval, 1) << compiled.compiled.segmented->toString();
  EXPECT_EQ(expectSortKernelsCompile(compiled), 0);
}

TEST(SortKernelTest, EveryOtherSchedulerRefusesASegmentHoldingASort) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1, T2 = fd.ops.topk(T0, 4, dim=0)
    fd.add_output(T1)
    fd.add_output(T2)
)"),
                                                "16x64:f32");
  const auto& groups = compiled.compiled.segmented->groups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].choice.type, SchedulerType::Pointwise);
  ASSERT_FALSE(groups[0].choice.rejected.empty());
  for (const scheduler::Rejection& rejection : groups[0].choice.rejected) {
    if (rejection.scheduler == SchedulerType::ExprEval) {
      EXPECT_TRUE(contains(rejection.reason, "the pointwise scheduler's sort kernel runs"))
          << rejection.reason;
    } else {
      EXPECT_TRUE(contains(rejection.reason, "holds a topk")) << rejection.reason;
    }
  }
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "pointwise (sort)")) << kernel.source;
  // 16 elements a line: 8 compare-exchanges, a block of 32 threads.
  EXPECT_EQ(kernel.launch.block[0], 32);
  EXPECT_EQ(kernel.launch.grid[0], 64);
  expectCompilesForSm80AndSm90(kernel);
}

}  // namespace
}  // namespace fuserlab::codegen
