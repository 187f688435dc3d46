// The indexed-write kernel (core/codegen/scatter_emitter.h): scatter (tensor,
// constant and scalar-input src) and index_put_accumulate each run in a
// pointwise segment of their own, which NVRTC compiles for sm_80 and sm_90
// in every dtype; index_put_accumulate of Half, BFloat16 and Bool sums in a
// workspace, of the others into the output; every other scheduler refuses a
// segment holding one. They were expr_eval (CPU reference only) segments.
#include <string>
#include <vector>

#include "core/cuda/nvrtc_compiler.h"
#include "core/scheduler/registry.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

using scheduler::SchedulerType;

constexpr std::string_view kMarker = "pointwise (indexed write)";

// Every kernel of `compiled` is generated and compiles, and every segment
// holding a scatter or index_put_accumulate is a pointwise one (not
// expr_eval, as before); returns the indexed-write kernels.
std::vector<GeneratedKernel> expectIndexedWriteKernelsCompile(const CompiledScript& compiled) {
  for (const auto& group : compiled.compiled.segmented->groups()) {
    for (const ir::Expr* expr : group.exprs) {
      if (expr->type() != ir::ExprType::Scatter &&
          expr->type() != ir::ExprType::IndexPutAccumulate) {
        continue;
      }
      EXPECT_EQ(group.choice.type, SchedulerType::Pointwise)
          << compiled.compiled.segmented->toString();
    }
  }
  return expectKernelsCompile(compiled, std::string(kMarker));
}

const std::vector<std::pair<std::string, std::string>> kDtypes = {
    {"Half", "f16"},  {"BFloat16", "bf16"}, {"Float", "f32"}, {"Double", "f64"},
    {"Int32", "i32"}, {"Int", "i64"},       {"Bool", "bool"}};

TEST(IndexedWriteKernelTest, ScatterOfEveryDtypeAndSrcCompiles) {
  for (const auto& [dtype, shortName] : kDtypes) {
    SCOPED_TRACE(dtype);
    const std::string value = dtype == "Bool" ? "True" : "2";
    const CompiledScript compiled = compileScript(
        script(
            "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType." +
            dtype +
            ")\n"
            "    I1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
            "dtype=DataType.Int)\n"
            "    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType." +
            dtype +
            ")\n"
            "    S3 = fd.define_scalar(None, dtype=DataType.Double)\n"
            "    fd.add_output(fd.ops.scatter(T0, I1, T2, dim=0))\n"
            "    fd.add_output(fd.ops.scatter(T0, I1, " +
            value +
            ", 1))\n"
            "    fd.add_output(fd.ops.scatter(T0, I1, S3, dim=1))\n"),
        "24x6:" + shortName + ",4x6:i64,4x6:" + shortName + ",1.5");
    const std::vector<GeneratedKernel> writes = expectIndexedWriteKernelsCompile(compiled);
    ASSERT_EQ(writes.size(), 3u);
    for (const GeneratedKernel& kernel : writes) {
      EXPECT_TRUE(contains(kernel.source, "fl::red::grid_sync(")) << kernel.source;
      EXPECT_EQ(kernel.workspaceBytes, 256);
      EXPECT_FALSE(kernel.zeroWorkspaceEachLaunch);
    }
  }
}

TEST(IndexedWriteKernelTest, IndexPutAccumulateOfEveryDtypeCompiles) {
  for (const auto& [dtype, shortName] : kDtypes) {
    SCOPED_TRACE(dtype);
    const CompiledScript compiled = compileScript(
        script("    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
               "dtype=DataType." +
               dtype +
               ")\n"
               "    I1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int32)\n"
               "    T2 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True], "
               "dtype=DataType." +
               dtype +
               ")\n"
               "    fd.add_output(fd.ops.index_put_accumulate(T0, I1, T2))\n"),
        "32x3x16:" + shortName + ",20:i32,20x1x16:" + shortName);
    const std::vector<GeneratedKernel> writes = expectIndexedWriteKernelsCompile(compiled);
    ASSERT_EQ(writes.size(), 1u);
    const GeneratedKernel& kernel = writes[0];
    const bool narrow = dtype == "Half" || dtype == "BFloat16" || dtype == "Bool";
    // Narrow dtypes sum in the reference's compute dtype, rounded once.
    EXPECT_EQ(contains(kernel.source, "fl_sums"), narrow) << kernel.source;
    EXPECT_EQ(kernel.workspaceBytes, 256 + (narrow ? 32 * 3 * 16 * 8 : 0));
    EXPECT_TRUE(contains(kernel.source, "atomicAdd(")) << kernel.source;
  }
}

// As the corpus's legacy one-hot: full, a broadcast index, a scalar src,
// then a product and a sum: the scatter is a segment of its own between
// kernels.
TEST(IndexedWriteKernelTest, AScatterIsASegmentOfItsOwnBetweenKernels) {
  const CompiledScript compiled = compileScript(script(R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    T2 = fd.ops.broadcast_in_dim(T1, shape=[10, 1], broadcast_dims=[0])
    T3 = fd.ops.full(shape=[10, 12], fill_value=0.0, dtype=DataType.Float)
    T5 = fd.ops.scatter(T3, T2, 1.0, 1)
    T6 = fd.ops.mul(T0, T5)
    fd.add_output(T5)
    fd.add_output(fd.ops.sum(T6, dims=[1]))
)"),
                                                "10x12:f32,10:i64");
  EXPECT_EQ(expectIndexedWriteKernelsCompile(compiled).size(), 1u);
  int scatterGroups = 0;
  for (const auto& group : compiled.compiled.segmented->groups()) {
    for (const ir::Expr* expr : group.exprs) {
      if (expr->type() != ir::ExprType::Scatter) continue;
      ++scatterGroups;
      EXPECT_EQ(group.exprs.size(), 1u);
      EXPECT_EQ(group.choice.type, SchedulerType::Pointwise);
    }
  }
  EXPECT_EQ(scatterGroups, 1);
}

TEST(IndexedWriteKernelTest, EveryOtherSchedulerRefusesASegmentHoldingOne) {
  for (const std::string op :
       {"fd.ops.scatter(T0, I1, T0, dim=0)", "fd.ops.index_put_accumulate(T0, I2, T0)"}) {
    SCOPED_TRACE(op);
    const CompiledScript compiled = compileScript(script(
                                                      R"(
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    I1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int)
    I2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    fd.add_output()" + op + R"()
)"),
                                                  "16x64:f32,16x64:i64,16:i64");
    const auto& groups = compiled.compiled.segmented->groups();
    ASSERT_EQ(groups.size(), 1u);
    EXPECT_EQ(groups[0].choice.type, SchedulerType::Pointwise);
    ASSERT_FALSE(groups[0].choice.rejected.empty());
    for (const scheduler::Rejection& rejection : groups[0].choice.rejected) {
      EXPECT_TRUE(contains(rejection.reason, "indexed-write kernel runs it")) << rejection.reason;
    }
    expectCompilesForSm80AndSm90(onlyKernel(compiled));
  }
}

}  // namespace
}  // namespace fuserlab::codegen
