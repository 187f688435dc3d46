// Random ops on the GPU against the CPU reference, bit for bit: both run the
// same Philox source (core/ir/random_numbers.h), so rand_like, randn_like,
// uniform and normal must agree exactly in every dtype, at odd sizes, in
// vectorized pointwise kernels and inside a reduction kernel. sdpfa_bwd has
// no GPU kernel: the cuda backend refuses it by name.
#include <cstring>
#include <string>
#include <vector>

#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

// Every output of the last GPU run equals the reference's bit for bit.
void expectBitExact(const std::vector<Tensor>& gpu, const std::vector<Tensor>& reference) {
  ASSERT_EQ(gpu.size(), reference.size());
  for (size_t i = 0; i < gpu.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    ASSERT_EQ(gpu[i].dtype(), reference[i].dtype());
    ASSERT_EQ(gpu[i].sizes(), reference[i].sizes());
    const Tensor a = gpu[i].contiguous();
    const Tensor b = reference[i].contiguous();
    const auto bytes = static_cast<size_t>(a.numel() * ir::sizeInBytes(a.dtype()));
    int64_t mismatches = 0;
    int64_t first = -1;
    const size_t width = static_cast<size_t>(ir::sizeInBytes(a.dtype()));
    for (size_t at = 0; at < bytes; at += width) {
      if (std::memcmp(static_cast<const char*>(a.data()) + at,
                      static_cast<const char*>(b.data()) + at, width) != 0) {
        if (first < 0) first = static_cast<int64_t>(at / width);
        ++mismatches;
      }
    }
    EXPECT_EQ(mismatches, 0) << "of " << a.numel() << " elements; the first at " << first;
  }
}

class GpuRandomTest : public GpuTest {
 protected:
  void checkExactly(const runtime::Arguments& inputs) {
    runAndCheck(inputs);
    if (unavailable()) return;
    expectBitExact(lastOutputs(), runtime::runReference(fusion(), inputs));
  }
};

TEST_F(GpuRandomTest, RandLikeAndRandnLikeMatchTheReferenceInEveryDtype) {
  for (const char* dtype : {"Float", "Half", "BFloat16", "Double"}) {
    SCOPED_TRACE(dtype);
    define(std::string("T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                       "dtype=DataType.") +
           dtype +
           ")\n"
           "S1 = fd.define_scalar(DataType.Int)\n"
           "S2 = fd.define_scalar(DataType.Int)\n"
           "T3 = fd.ops.rand_like(T0, rng_seed=S1, rng_offset=S2)\n"
           "T4 = fd.ops.randn_like(T0, rng_seed=S1, rng_offset=S2)\n"
           "fd.add_output(T3)\n"
           "fd.add_output(T4)\n");
    const DataType dt = fusion().inputs()[0]->dtype();
    for (const std::vector<int64_t>& sizes :
         {std::vector<int64_t>{1, 1}, {3, 5}, {37, 1001}, {129, 4099}}) {
      SCOPED_TRACE(shape(sizes));
      checkExactly(
          {random(dt, sizes), ir::ScalarValue(int64_t{20260217}), ir::ScalarValue(int64_t{-3})});
      FL_SKIP_IF_UNAVAILABLE();
    }
  }
}

TEST_F(GpuRandomTest, UniformAndNormalWithBoundsBesideOtherOps) {
  for (const char* dtype : {"Float", "Half", "BFloat16", "Double"}) {
    SCOPED_TRACE(dtype);
    define(std::string("T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, "
                       "True], dtype=DataType.") +
           dtype +
           ")\n"
           "S1 = fd.define_scalar(DataType.Double)\n"
           "T2 = fd.ops.uniform(S1, 2.5, T0.shape(), rng_seed=7, rng_offset=11, dtype=DataType." +
           dtype +
           ")\n"
           "T3 = fd.ops.normal(-1.0, S1, T0.shape(), rng_seed=7, rng_offset=12, "
           "dtype=DataType." +
           dtype +
           ")\n"
           "T4 = fd.ops.mul(T0, T2)\n"
           "fd.add_output(T2)\n"
           "fd.add_output(T3)\n"
           "fd.add_output(T4)\n");
    const DataType dt = fusion().inputs()[0]->dtype();
    checkExactly({random(dt, {5, 67, 257}), ir::ScalarValue(0.75)});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuRandomTest, DefaultSeedsAndABroadcastAxis) {
  define(
      "T0 = fd.ops.uniform(0.0, 1.0, shape=[33, 1, 65], dtype=DataType.Float)\n"
      "T1 = fd.ops.normal(0.0, 1.0, shape=[33, 1, 65], dtype=DataType.BFloat16)\n"
      "fd.add_output(T0)\n"
      "fd.add_output(T1)\n");
  checkExactly({});
}

TEST_F(GpuRandomTest, DropoutMaskInsideAReductionKernel) {
  define(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16)\n"
      "T1 = fd.ops.rand_like(T0, rng_seed=1234, rng_offset=0)\n"
      "S2 = fd.define_scalar(0.9, dtype=DataType.Double)\n"
      "T3 = fd.ops.lt(T1, S2)\n"
      "T4 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "T5 = fd.ops.where(T3, T4, 0.0)\n"
      "T6 = fd.ops.sum(T5, dims=[1])\n"
      "fd.add_output(T6)\n"
      "fd.add_output(T3)\n");
  const Tensor x = random(DataType::BFloat16, {300, 4099});
  runAndCheck({x});
  FL_SKIP_IF_UNAVAILABLE();
  // The sum is checked with the float tolerance above; the mask is exact.
  const std::vector<Tensor> reference = runtime::runReference(fusion(), {x});
  ASSERT_EQ(lastOutputs().size(), 2u);
  expectBitExact({lastOutputs()[1]}, {reference[1]});
}

TEST_F(GpuRandomTest, SdpfaBwdIsRefusedByName) {
  define(
      "T0 = fd.define_tensor(shape=[2, 2, 16, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "T1 = fd.define_tensor(shape=[2, 2, 16], contiguity=[True, True, True], "
      "dtype=DataType.Float)\n"
      "T2, T3, T4 = fd.ops.sdpfa_bwd(T0, T0, T0, T0, T0, T1, 0.0, False, None, None, None)\n"
      "fd.add_output(T2)\n");
  runtime::GpuExecutor executor(fusion(), 0, compiler::CompileOptions{}, &cache());
  runtime::Arguments inputs = {random(DataType::BFloat16, {2, 2, 16, 8}),
                               random(DataType::Float, {2, 2, 16})};
  try {
    runtime::runOnGpu(executor, inputs, runtime::GpuRunOptions{});
    ADD_FAILURE() << "sdpfa_bwd ran on the GPU";
  } catch (const runtime::KernelUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("sdpfa_bwd"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("no GPU kernel"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fuserlab::gpu_test
