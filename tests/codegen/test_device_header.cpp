#include <gtest/gtest.h>

#include "core/codegen/codegen.h"
#include "core/cuda/nvrtc_compiler.h"

namespace fuserlab::codegen {
namespace {

TEST(DeviceHeaderTest, IsSelfContained) {
  const std::string header(deviceHelperSource());
  EXPECT_EQ(header.find("#include"), std::string::npos);
  for (const char* name : {"struct Tensor", "struct alignas(2) half", "struct alignas(2) bfloat16",
                           "struct alignas(Align) Array", "warp_reduce", "block_reduce_x",
                           "struct Welford", "welford_combine", "block_welford_x"}) {
    EXPECT_NE(header.find(name), std::string::npos) << name;
  }
}

// Every helper instantiated once, for both CI architectures.
TEST(DeviceHeaderTest, EveryHelperCompiles) {
  GeneratedKernel kernel;
  kernel.name = "probe";
  kernel.source = R"(#include "fuserlab_device.cuh"
extern "C" __global__ void probe(fl::Tensor<fl::bfloat16, 2> T0, fl::Tensor<fl::half, 1> T1,
                                 fl::Tensor<double, 0> T2, fl::Tensor<int64_t, 1> T3,
                                 fl::Tensor<bool, 1> T4, double d, int64_t i, bool b) {
  __shared__ float smem[1024];
  __shared__ double dsmem[1024];
  __shared__ fl::Welford<float> wsmem[1024];
  float a = fl::load_value(T0.data[threadIdx.x]);
  a += fl::load_value(T1.data[threadIdx.x]);
  fl::Array<fl::bfloat16, 8> v = fl::load_vector<8>(T0.data);
  fl::store_vector<8>(T0.data + 8, v);
  a = fl::round_to_bf16(fl::maximum(a, 2.0f) + fl::minimum(a, 1.0f) + fl::sigmoid(a) +
                        fl::silu(a) + fl::relu(a) + fl::sign(a) + fl::frac(a) +
                        fl::rsqrt_exact(a) + fl::lerp(a, a, a) + fl::clamp(a, 0.0f, 1.0f) +
                        fl::remainder(a, 3.0f) + fl::ceil_div(a, 2.0f) + fl::pow(a, 2.0f));
  a = fl::round_to_half(a) + fl::round_to_half(d) + fl::round_to_half(i) + fl::round_to_bf16(i);
  int64_t k = fl::add(i, i) + fl::sub(i, i) + fl::mul(i, i) + fl::div(i, i) + fl::fmod(i, i) +
              fl::remainder(i, i) + fl::ceil_div(i, i) + fl::pow(i, i) + fl::left_shift(i, i) +
              fl::right_shift(i, i) + fl::abs(i) + fl::neg(i) + fl::to_int64(a) + fl::to_int32(d) +
              fl::slice_bound(i, i);
  a += fl::block_reduce_x(a, fl::SumOp<float>(), smem);
  a += fl::warp_reduce(a, fl::MaxOp<float>()) + fl::warp_reduce(a, fl::MinOp<float>()) +
       fl::warp_reduce(a, fl::ProdOp<float>());
  double e = fl::block_reduce_x(d, fl::MaxOp<double>(), dsmem) + fl::block_broadcast_x(d, 0, dsmem);
  k += fl::warp_reduce(k, fl::SumOp<int64_t>());
  fl::Welford<float> w = fl::welford_identity<float>();
  fl::welford_update(w, a);
  w = fl::block_welford_x(fl::warp_welford(w), wsmem);
  T2.data[0] = e + w.avg + w.m2 + (double)w.n + fl::to_double(b) + fl::to_float(k);
  T3.data[0] = k;
  T4.data[0] = fl::to_bool(a) && fl::is_nan(a);
  T1.data[0] = fl::to_element<fl::half>(a);
}
)";
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << "sm_" << arch;
  }
}

// A bf16 chunk's lane comes from its 32-bit word by one shift or mask;
// other element types, and bf16 chunks of odd length, read the element.
TEST(DeviceHeaderTest, Bf16ChunkLanesAreReadFromWholeWords) {
  const std::string header(deviceHelperSource());
  const size_t at = header.find("float load_lane(const Array<bfloat16, N, A>& a, int i)");
  ASSERT_NE(at, std::string::npos) << header;
  const std::string body = header.substr(at, header.find("\n}\n", at) - at);
  EXPECT_NE(body.find("word & 0xFFFF0000u"), std::string::npos) << body;
  EXPECT_NE(body.find("word << 16"), std::string::npos) << body;
  GeneratedKernel kernel;
  kernel.name = "probe";
  kernel.source = R"(#include "fuserlab_device.cuh"
extern "C" __global__ void probe(fl::Tensor<fl::bfloat16, 1> T0, fl::Tensor<fl::half, 1> T1,
                                 fl::Tensor<float, 1> T2, fl::Tensor<double, 1> T3) {
  const fl::Array<fl::bfloat16, 8> b8 = fl::load_vector<8>(T0.data);
  const fl::Array<fl::bfloat16, 1> b1 = fl::load_vector<1>(T0.data);
  const fl::Array<fl::half, 4> h4 = fl::load_vector<4>(T1.data);
  const fl::Array<float, 4> f4 = fl::load_vector<4>(T2.data);
  const fl::Array<double, 2> d2 = fl::load_vector<2>(T3.data);
  float sum = fl::load_lane(b1, 0);
#pragma unroll
  for (int v = 0; v < 8; ++v) sum += fl::load_lane(b8, v) + fl::load_lane(h4, v % 4) + fl::load_lane(f4, v % 4);
  T2.data[threadIdx.x] = sum;
  T3.data[threadIdx.x] = fl::load_lane(d2, 1);
}
)";
  for (int arch : {80, 90}) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << "sm_" << arch;
  }
}

// float -> bf16 is cvt.rn.bf16.f32 on sm_80+ (the software rounding costs
// about seven instructions per element); the software fallback still builds
// for older architectures.
TEST(DeviceHeaderTest, Bf16RoundingIsOneConversionFromSm80) {
  const std::string header(deviceHelperSource());
  const size_t convert = header.find("bfloat16 float_to_bf16(float value)");
  ASSERT_NE(convert, std::string::npos);
  const size_t end = header.find("\n}\n", convert);
  const std::string body = header.substr(convert, end - convert);
  EXPECT_NE(body.find("__CUDA_ARCH__ >= 800"), std::string::npos) << body;
  EXPECT_NE(body.find("cvt.rn.bf16.f32"), std::string::npos) << body;
  EXPECT_NE(body.find("0x7FFFu"), std::string::npos) << body;  // the fallback
  GeneratedKernel kernel;
  kernel.name = "probe";
  kernel.source = R"(#include "fuserlab_device.cuh"
extern "C" __global__ void probe(fl::Tensor<fl::bfloat16, 1> T0, float x) {
  T0.data[threadIdx.x] = fl::to_element<fl::bfloat16>(fl::round_to_bf16(x));
}
)";
  for (int arch : runtime::nvrtcSupportedArchitectures()) {
    if (arch != 75 && arch != 80 && arch != 90) continue;
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << "sm_" << arch;
  }
}

}  // namespace
}  // namespace fuserlab::codegen
