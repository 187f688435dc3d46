// The scan kernel (core/codegen/scan_emitter.h): cumsum, cumprod, cummin and
// cummax each run in a pointwise segment of their own, one thread per line,
// which NVRTC compiles for every dtype, along an outer, a middle and the
// innermost axis, with an init, on a 0-dim tensor and along an expanded
// axis; every other scheduler refuses a segment holding a scan.
#include <string>
#include <vector>

#include "core/cuda/nvrtc_compiler.h"
#include "core/scheduler/registry.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

using scheduler::SchedulerType;

// Every kernel of `compiled` is generated and compiles; returns how many
// were scan kernels.
int expectScanKernelsCompile(const CompiledScript& compiled) {
  return static_cast<int>(expectKernelsCompile(compiled, "pointwise (scan)").size());
}

TEST(ScanKernelTest, EveryOpAndDtypeAlongEveryAxisCompiles) {
  for (const std::string dtype : {"Half", "BFloat16", "Float", "Double", "Int32", "Int", "Bool"}) {
    SCOPED_TRACE(dtype);
    const std::string shortName = dtype == "Half"       ? "f16"
                                  : dtype == "BFloat16" ? "bf16"
                                  : dtype == "Float"    ? "f32"
                                  : dtype == "Double"   ? "f64"
                                  : dtype == "Int32"    ? "i32"
                                  : dtype == "Int"      ? "i64"
                                                        : "bool";
    const CompiledScript compiled = compileScript(
        script("    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
               "dtype=DataType." +
               dtype +
               ")\n"
               "    fd.add_output(fd.ops.cumsum(T0, 0))\n"
               "    fd.add_output(fd.ops.cumprod(T0, 1))\n"
               "    fd.add_output(fd.ops.cummax(T0, -1))\n"
               "    fd.add_output(fd.ops.cummin(T0, dim=1))\n"),
        "6x40x5:" + shortName);
    for (const auto& group : compiled.compiled.segmented->groups()) {
      EXPECT_EQ(group.choice.type, SchedulerType::Pointwise)
          << compiled.compiled.segmented->toString();
    }
    EXPECT_EQ(expectScanKernelsCompile(compiled), 4);
  }
}

TEST(ScanKernelTest, AScanIsASegmentOfItsOwnBetweenKernels) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.exp(T1)
    T3 = fd.ops.cumsum(T2, 1, init=1.5)
    T4 = fd.ops.div(T2, T3)
    fd.add_output(fd.ops.cast(T4, dtype=DataType.BFloat16))
)"),
                                                "32x300:bf16");
  ASSERT_EQ(compiled.kernels.size(), 3u) << compiled.compiled.segmented->toString();
  EXPECT_EQ(expectScanKernelsCompile(compiled), 1);
  for (const runtime::SegmentKernel& segment : compiled.kernels) {
    if (segment.kernel && contains(segment.kernel->source, "pointwise (scan)")) {
      // The init, converted to the float accumulator.
      EXPECT_TRUE(contains(segment.kernel->source, "acc = fl::") ||
                  contains(segment.kernel->source, "acc = (acc + v)"))
          << segment.kernel->source;
      EXPECT_TRUE(contains(segment.kernel->source, "1.5")) << segment.kernel->source;
    }
  }
}

TEST(ScanKernelTest, A0DimScanAScalarInitAndAnExpandedAxisCompile) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Int32)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    T3 = fd.ops.expand(T1, shape=[T1.size(0), 9])
    fd.add_output(fd.ops.cumsum(T0, 0))
    fd.add_output(fd.ops.cumsum(T3, 1, init=S2))
    fd.add_output(fd.ops.cummax(T3, 0))
)"),
                                                ":f32,7x1:i32,3");
  EXPECT_EQ(expectScanKernelsCompile(compiled), 3);
}

TEST(ScanKernelTest, EveryOtherSchedulerRefusesASegmentHoldingAScan) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.cumsum(T0, 0)
    fd.add_output(T1)
)"),
                                                "16x64:f32");
  const auto& groups = compiled.compiled.segmented->groups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].choice.type, SchedulerType::Pointwise);
  ASSERT_FALSE(groups[0].choice.rejected.empty());
  for (const scheduler::Rejection& rejection : groups[0].choice.rejected) {
    EXPECT_TRUE(contains(rejection.reason, "holds a scan")) << rejection.reason;
  }
  const GeneratedKernel& kernel = onlyKernel(compiled);
  // Consecutive threads take consecutive columns of the outer-axis scan.
  EXPECT_TRUE(contains(kernel.source, "const index_t a1 = rest;")) << kernel.source;
  expectCompilesForSm80AndSm90(kernel);
}

}  // namespace
}  // namespace fuserlab::codegen
