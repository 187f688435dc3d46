// The attention emitter's choice between the tiled tensor-core kernel and
// the one-row kernel, the tiled kernel's launch and source, and that both
// compile (no GPU: tests/gpu/test_gpu_matmul.cpp checks their results).
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/codegen/attention_flash.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/scheduler/matmul/attention_choice.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

std::string sdpaScript(const std::string& dtype, const std::string& causal) {
  const std::string t = "dtype=DataType." + dtype;
  return "from nvfuser import FusionDefinition, DataType\n\n"
         "def fusion_func(fd : FusionDefinition) -> None :\n"
         "    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], " +
         t +
         ", is_cpu=False)\n"
         "    T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], " +
         t +
         ", is_cpu=False)\n"
         "    T2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], " +
         t +
         ", is_cpu=False)\n"
         "    S3 = fd.define_scalar(0.00000, dtype=DataType.Double)\n"
         "    S4 = fd.define_scalar(" +
         causal +
         ", dtype=DataType.Bool)\n"
         "    S5 = fd.define_scalar(0.125000, dtype=DataType.Double)\n"
         "    T6, T7, T8, T9 = fd.ops.sdpfa_fwd(T0, T1, T2, S3, S4, S5)\n"
         "    fd.add_output(T6)\n"
         "    fd.add_output(T7)\n";
}

TEST(AttentionEmitterTest, Bf16HeadsOf64TakeTheTensorCores) {
  // q [2, 16, 200, 64] bf16, k and v [2, 16, 300, 64]: blocks of 64 query
  // rows (4 along x, the last partial), one per (head, batch); 128 threads;
  // the q tile and double-buffered k and v tiles in shared memory.
  const CompiledScript compiled = compileScript(
      sdpaScript("BFloat16", "True"), "2x16x200x64:bf16,2x16x300x64:bf16,2x16x300x64:bf16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{4, 16, 2}));
  EXPECT_EQ(k.launch.block, (std::array<int64_t, 3>{128, 1, 1}));
  EXPECT_EQ(k.launch.dynamicSharedMemoryBytes, flashAttentionSharedBytes(64));
  // q, and two buffers each of k and v (cp.async fills one while the other
  // is read): 320 rows of 64 + 8 elements.
  EXPECT_EQ(flashAttentionSharedBytes(64), 320 * 72 * 2);
  EXPECT_NE(k.source.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_NE(k.source.find("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), std::string::npos);
  EXPECT_NE(k.source.find("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), std::string::npos)
      << k.source;
  EXPECT_NE(k.source.find("constexpr bool kCausal = true;"), std::string::npos);
  EXPECT_NE(k.source.find("__launch_bounds__(128)"), std::string::npos);
  for (int arch : {80, 90}) {
    EXPECT_FALSE(runtime::compileWithNvrtc(k, arch).cubin.empty()) << "sm_" << arch;
  }
}

TEST(AttentionEmitterTest, HalfHeadsOf128CompileWithTheirOwnMma) {
  const CompiledScript compiled =
      compileScript(sdpaScript("Half", "False"), "1x2x70x128:f16,1x2x90x128:f16,1x2x90x128:f16");
  const GeneratedKernel& k = onlyKernel(compiled);
  EXPECT_NE(k.source.find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), std::string::npos);
  EXPECT_NE(k.source.find("cvt.rn.f16x2.f32"), std::string::npos);
  // 85 KB: over the 48 KB default, which the executor raises per kernel.
  EXPECT_EQ(k.launch.dynamicSharedMemoryBytes, 320 * 136 * 2);
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
}

TEST(AttentionEmitterTest, OtherHeadDimensionsKeepTheOneRowKernel) {
  // sdpfa_fwd takes bf16 or half of one type (the frontend refuses others);
  // a head dimension the mma tiles do not divide, or one past 128, or v's
  // differing from q's, runs one block per query row.
  const CompiledScript odd =
      compileScript(sdpaScript("BFloat16", "True"), "2x3x30x72:bf16,2x3x50x72:bf16,2x3x50x72:bf16");
  const GeneratedKernel& k = onlyKernel(odd);
  EXPECT_EQ(k.source.find("mma.sync"), std::string::npos) << k.source;
  EXPECT_EQ(k.launch.grid, (std::array<int64_t, 3>{30, 3, 2}));
  EXPECT_FALSE(runtime::compileWithNvrtc(k, 90).cubin.empty());
  using ir::DataType;
  using scheduler::tiledAttentionRefusal;
  const DataType bf16 = DataType::BFloat16, half = DataType::Half;
  EXPECT_EQ(tiledAttentionRefusal(bf16, bf16, bf16, 72, 72, 90),
            "the head dimension 72 is not a multiple of 16 from 16 to 128");
  EXPECT_EQ(tiledAttentionRefusal(bf16, bf16, bf16, 256, 256, 90),
            "the head dimension 256 is not a multiple of 16 from 16 to 128");
  EXPECT_EQ(tiledAttentionRefusal(half, half, half, 64, 32, 90),
            "q's head dimension 64 differs from v's 32");
  EXPECT_EQ(tiledAttentionRefusal(DataType::Float, DataType::Float, DataType::Float, 64, 64, 90),
            "the tensor cores take bf16 or half, not Float");
  EXPECT_EQ(tiledAttentionRefusal(bf16, bf16, bf16, 64, 64, 75),
            "sm_75 has no bf16 mma.sync (sm_80 and later)");
  EXPECT_FALSE(tiledAttentionRefusal(half, half, half, 16, 16, 80));
}

}  // namespace
}  // namespace fuserlab::codegen
