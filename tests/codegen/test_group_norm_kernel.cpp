// GroupNorm as one kernel (issue 45, item 2): with refine_reshaped_reductions
// on (the default), the suite's GroupNorm + SiLU (and the same shape of
// fusion elsewhere: statistics over a reshape that merges the channels of a
// group with the pixels) is one inner persistent segment whose kernel NVRTC
// compiles, where with it off the statistics and the normalization are two
// kernels that each read x.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <sstream>
#include <string>

#include "core/compiler/compile_options.h"
#include "core/cuda/ptxas_usage.h"
#include "core/scheduler/registry.h"
#include "tests/codegen/codegen_fixture.h"
#include "tests/source_dir.h"

namespace fuserlab::codegen {
namespace {

std::string readSource(const std::string& relative) {
  std::ifstream in(fuserlab::test::sourceDir() + "/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int kernelSegments(const CompiledScript& compiled) {
  int n = 0;
  for (const runtime::SegmentKernel& segment : compiled.kernels) n += segment.kernel ? 1 : 0;
  return n;
}

TEST(GroupNormKernelTest, TheSuitesGroupNormsAreOneInnerPersistentKernel) {
  compiler::CompileOptions on;
  on.set("refine_reshaped_reductions", "on");
  compiler::CompileOptions off;
  off.set("refine_reshaped_reductions", "off");
  for (const std::string name : {"groupnorm_silu_32x320x64x64", "groupnorm_silu_8x320x63x63"}) {
    SCOPED_TRACE(name);
    const std::string source = readSource("tests/perf/suite/" + name + ".py");
    const CompiledScript refined = compileScript(source, {}, nullptr, "h200", on);
    EXPECT_EQ(kernelSegments(refined), 1);
    const std::vector<GeneratedKernel> kernels = expectKernelsCompile(refined, "inner_persistent");
    ASSERT_EQ(kernels.size(), 1u);
    if (name == "groupnorm_silu_32x320x64x64") {
      // A chunk of 8 never crosses a channel's 4096 pixels: weight and bias
      // are read once a chunk, not once a lane (their broadcast axes'
      // guards are an output's concern; 255 registers and spills before).
      EXPECT_EQ(count(kernels[0].source, "_ld[l] = x;"), 2) << kernels[0].source;
    }
    const CompiledScript plain = compileScript(source, {}, nullptr, "h200", off);
    EXPECT_EQ(kernelSegments(plain), 2) << "without the rewrite, statistics and normalization";
  }
}

// The other real forms: nvFuser's benchmark GroupNorms (reshaped to [N, G,
// C/G, H, W], which keeps the innermost extent, and back; the weight given
// per channel or already reshaped to [1, G, C/G, 1, 1]) and a QK-norm
// (heads reshaped out of [B, S, H * D] and back); both were two kernels.
TEST(GroupNormKernelTest, ReshapesBackAfterTheStatisticsAreOneKernel) {
  compiler::CompileOptions on;
  on.set("refine_reshaped_reductions", "on");
  compiler::CompileOptions off;
  off.set("refine_reshaped_reductions", "off");
  for (const std::string name :
       {"bench_groupnorm_reshape", "bench_groupnorm_define_vector", "qk_norm_heads_reshape"}) {
    SCOPED_TRACE(name);
    const std::string source = readSource("tests/frontend/corpus/" + name + ".py");
    const CompiledScript refined = compileScript(source, {}, nullptr, "h200", on);
    EXPECT_EQ(kernelSegments(refined), 1) << refined.compiled.segmented->toString();
    EXPECT_EQ(expectKernelsCompile(refined, "inner_persistent").size(), 1u);
    EXPECT_EQ(kernelSegments(compileScript(source, {}, nullptr, "h200", off)), 2);
    // On by default.
    EXPECT_EQ(kernelSegments(compileScript(source, {}, nullptr, "h200")), 1);
  }
}

TEST(GroupNormKernelTest, OddGroupsAndABatchOfOneCompileAsOneKernel) {
  compiler::CompileOptions on;
  on.set("refine_reshaped_reductions", "on");
  // [N, C, H, W], groups: 3 channels of 5 x 7 a group; a batch of one with
  // groups of one channel; a row of one pixel.
  for (const auto& [nchw, g] :
       {std::pair<std::string, int>{"2x12x5x7", 4}, {"1x8x3x4", 8}, {"3x6x1x9", 3}}) {
    SCOPED_TRACE(nchw);
    int64_t n = 0, c = 0, h = 0, w = 0;
    std::sscanf(nchw.c_str(), "%ldx%ldx%ldx%ld", &n, &c, &h, &w);
    const std::string shape = std::to_string(n) + ", " + std::to_string(c) + ", " +
                              std::to_string(h) + ", " + std::to_string(w);
    const std::string grouped =
        std::to_string(n) + ", " + std::to_string(g) + ", " + std::to_string(c / g * h * w);
    const CompiledScript compiled = compileScript(
        script("    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, "
               "True], dtype=DataType.BFloat16)\n"
               "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16)\n"
               "    T2 = fd.ops.cast(T0, dtype=DataType.Float)\n"
               "    T3 = fd.ops.reshape(T2, new_shape=[" +
               grouped +
               "])\n"
               "    T4, T5 = fd.ops.var_mean(T3, dims=[2], correction=0, keepdim=True)\n"
               "    T6 = fd.ops.rsqrt(fd.ops.add(T4, 1e-05))\n"
               "    T7 = fd.ops.mul(fd.ops.sub(T3, T5), T6)\n"
               "    T8 = fd.ops.reshape(T7, new_shape=[" +
               shape +
               "])\n"
               "    T9 = fd.ops.broadcast_in_dim(T1, shape=[" +
               shape +
               "], broadcast_dims=[1])\n"
               "    T10 = fd.ops.mul(T8, fd.ops.cast(T9, dtype=DataType.Float))\n"
               "    fd.add_output(fd.ops.cast(T10, dtype=DataType.BFloat16))\n"),
        nchw + ":bf16," + std::to_string(c) + ":bf16", nullptr, "h200", on);
    EXPECT_EQ(kernelSegments(compiled), 1) << compiled.compiled.segmented->toString();
    expectKernelsCompile(compiled, "inner_persistent");
  }
}

// Rows whose threads would keep more than 24 chunks each are split over a
// thread-block cluster (inner persistent heuristic, sm_90+). Stable
// Diffusion's VAE GroupNorm (8x512x64x64, rows of 65,536): whole rows, 32
// chunks of 8 a thread, spilled 1,980 bytes and ran 115 us on an H200;
// over 4 blocks, 8 chunks, no spill, 30.9 us (two kernels: 34.2). The
// suite's 32x320x64x64 (20 chunks) stays whole; an A100 has no clusters.
TEST(GroupNormKernelTest, RowsOfManyChunksAThreadAreSplitOverACluster) {
  const std::string source = readSource("tests/perf/heldout/groupnorm_silu_8x512x64x64.py");
  const CompiledScript split = compileScript(source, {}, nullptr, "h200");
  const GeneratedKernel& k = onlyKernel(split);
  EXPECT_EQ(k.launch.cluster, (std::array<int64_t, 3>{1, 4, 1}));
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{256, 4, 1}));
  codegen::GeneratedKernel verbose = k;
  verbose.options.emplace_back(runtime::kPtxasVerboseOption);
  const auto usage = runtime::parsePtxasUsage(runtime::compileWithNvrtc(verbose, 90).log, k.name);
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->spillStoreBytes, 0) << usage->toString();
  bool explained = false;
  for (const auto& segment : split.compiled.report.segments) {
    explained = explained ||
                segment.properties.dump(-1).find("each row is split over a cluster of 4 blocks") !=
                    std::string::npos;
  }
  EXPECT_TRUE(explained) << "the report says why";

  const CompiledScript whole = compileScript(
      readSource("tests/perf/suite/groupnorm_silu_32x320x64x64.py"), {}, nullptr, "h200");
  EXPECT_EQ(onlyKernel(whole).launch.cluster, (std::array<int64_t, 3>{1, 1, 1}));
  const CompiledScript ampere = compileScript(source, {}, nullptr, "a100");
  EXPECT_EQ(onlyKernel(ampere).launch.grid[1], 1);
}

}  // namespace
}  // namespace fuserlab::codegen
