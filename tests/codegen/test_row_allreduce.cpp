// How a block combines its threads' partials of a row (fl::red::row_allreduce)
// and how two Welford partials combine: the cost of the combine grows with
// the block, so blocks of 8 to 32 warps combine the warps' partials by a
// butterfly (log2 of the warps) rather than every thread folding every
// warp's partial in turn, and equal counts (full tiles) skip the Welford
// combine's division. tests/gpu (GpuReductionTest.InnerReductionsOverMany
// WarpsMatchTheReferenceAndRepeat) checks the results and their repeatability.
#include <gtest/gtest.h>

#include <string>

#include "core/codegen/codegen.h"
#include "core/codegen/reduction/reduction_emitter_common.h"
#include "core/cuda/nvrtc_compiler.h"

namespace fuserlab::codegen {
namespace {

std::string between(std::string_view text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  if (at == std::string_view::npos) return {};
  const size_t end = text.find(to, at);
  return std::string(text.substr(at, end == std::string_view::npos ? end : end - at));
}

TEST(RowAllreduceTest, EightOrMoreWarpsCombineByAButterflyOverTheWarps) {
  const std::string body =
      between(reductionDeviceHelpers(), "__device__ __forceinline__ T row_allreduce(", "\n}\n");
  ASSERT_FALSE(body.empty()) << reductionDeviceHelpers();
  const size_t tree = body.find("if constexpr (W >= 8 && (W & (W - 1)) == 0)");
  ASSERT_NE(tree, std::string::npos) << body;
  // Lane l starts from warp l % W's partial; offsets W/2 .. 1.
  EXPECT_NE(body.find("smem[threadIdx.y * W + (threadIdx.x % 32) % W]", tree), std::string::npos)
      << body;
  EXPECT_NE(body.find("for (int offset = W / 2; offset > 0; offset /= 2) r = butterfly(", tree),
            std::string::npos)
      << body;
  // Fewer warps, or a count that is not a power of two: warp order.
  EXPECT_NE(body.find("for (int w = 1; w < W; ++w) r = op(r, smem[threadIdx.y * W + w]);", tree),
            std::string::npos)
      << body;
}

TEST(RowAllreduceTest, WelfordCombineOfEqualCountsSkipsTheDivision) {
  const std::string body = between(deviceHelperSource(), "Welford<T> welford_combine(", "\n}\n");
  ASSERT_FALSE(body.empty());
  // b.n / (a.n + b.n) is exactly 0.5 when the counts are equal.
  EXPECT_NE(body.find("const T nb_over_n = a.n == b.n ? T(0.5) : (T)b.n / (T)r.n;"),
            std::string::npos)
      << body;
}

// Every branch instantiated: 3 (warp order), 4, 8, 16 and 32 warps, rows of
// one and of two threadIdx.y, with a sum and a Welford.
TEST(RowAllreduceTest, EveryBlockShapeCompiles) {
  GeneratedKernel kernel;
  kernel.name = "probe";
  kernel.source = "#include \"fuserlab_device.cuh\"\n" + std::string(reductionDeviceHelpers()) +
                  R"(
template <int BX, int BY>
__device__ void one(float x, float* out, void* smem) {
  fl::Welford<float> w = fl::welford_identity<float>();
  fl::welford_update(w, x);
  w = fl::red::row_allreduce<BX, BY>(w, fl::red::WelfordOp<float>(),
                                     reinterpret_cast<fl::Welford<float>*>(smem));
  const float s = fl::red::row_allreduce<BX, BY>(x, fl::SumOp<float>(),
                                                 reinterpret_cast<float*>(smem));
  if (threadIdx.x == 0) out[threadIdx.y] = w.avg + w.m2 + s;
}
extern "C" __global__ void probe(fl::Tensor<float, 1> T0) {
  __shared__ fl::Welford<float> smem[64];
  const float x = T0.data[threadIdx.x];
  one<96, 1>(x, T0.data, smem);
  one<128, 1>(x, T0.data, smem);
  one<256, 1>(x, T0.data, smem);
  one<512, 2>(x, T0.data, smem);
  one<1024, 1>(x, T0.data, smem);
}
)";
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << "sm_" << arch;
  }
}

}  // namespace
}  // namespace fuserlab::codegen
