// How kernels receive 0-dim and expanded inputs (no GPU needed): a CPU scalar
// tensor (is_cpu=True) is a by-value parameter in pointwise, transpose,
// reduction and persistent kernels, as nvFuser passes it; a GPU 0-dim tensor
// is read at its one element whatever the output index; an expanded input
// axis never enters an index, so its stride-0 storage is read in bounds.
// Every kernel compiles with NVRTC.
#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

class KernelInputsTest : public ::testing::Test {
 protected:
  //! The script around `body`, with `inputs` as its inputs block entries.
  static std::string withInputs(const std::string& body, const std::string& inputs) {
    return "import torch\n" + script(body) + "inputs = [\n" + inputs + "]\n";
  }

  static const KernelParameter& parameter(const GeneratedKernel& kernel, const std::string& name) {
    for (const KernelParameter& p : kernel.parameters) {
      if (p.name == name) return p;
    }
    throw std::runtime_error("no parameter " + name);
  }

  static void expectCompiles(const GeneratedKernel& kernel) {
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, 90)) << kernel.source;
  }
};

constexpr const char* kZeroDimPointwise =
    "    T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)\n"
    "    T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
    "dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])\n"
    "    T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)\n"
    "    T3 = fd.ops.mul(T0, T1)\n"
    "    T4 = fd.ops.where(fd.ops.gt(T3, T2), T0, T3)\n"
    "    T5 = fd.ops.lerp(T4, T0, T2)\n"
    "    fd.add_output(T5)\n";

TEST_F(KernelInputsTest, CpuScalarTensorIsAByValueParameterInPointwiseKernels) {
  const CompiledScript compiled =
      compileScript(withInputs(kZeroDimPointwise,
                               "    torch.randn((), device='cuda:0'),\n"
                               "    torch.randn(4, 8, 128, device='cuda:0'),\n"
                               "    torch.randn((), dtype=torch.float64),\n"));
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_EQ(parameter(kernel, "T2").kind, KernelParameter::Kind::Scalar);
  EXPECT_EQ(parameter(kernel, "T2").dtype, ir::DataType::Double);
  EXPECT_TRUE(contains(kernel.source, "    double T2,")) << kernel.source;
  EXPECT_FALSE(contains(kernel.source, "T2.data")) << kernel.source;
  // The GPU 0-dim tensor stays a tensor, read at its only element.
  EXPECT_EQ(parameter(kernel, "T0").kind, KernelParameter::Kind::Tensor);
  EXPECT_TRUE(contains(kernel.source, "fl::Tensor<float, 0> T0")) << kernel.source;
  EXPECT_TRUE(contains(kernel.source, "T0.data[0]")) << kernel.source;
  // The comparison with the Double 0-dim computes in float, as torch does
  // beside a dimensioned float tensor.
  EXPECT_TRUE(contains(kernel.source, "> fl::to_float(T2)")) << kernel.source;
  expectCompiles(kernel);
}

TEST_F(KernelInputsTest, CpuScalarTensorIsAByValueParameterInReductionKernels) {
  // An RMSNorm whose eps is a CPU scalar (inner persistent), then a sum of
  // the scaled rows (reduction).
  const std::string norm =
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
      "is_cpu=False, stride_order=[1, 0])\n"
      "    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)\n"
      "    T2 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    T3 = fd.ops.mul(T2, T2)\n"
      "    T4 = fd.ops.sum(T3, dims=[1], keepdim=False, dtype=DataType.Null)\n"
      "    T5 = fd.ops.broadcast(T4, is_broadcast_dim=[False, True])\n"
      "    T6 = fd.ops.rsqrt(fd.ops.add(T5, T1))\n"
      "    T7 = fd.ops.cast(fd.ops.mul(T2, T6), dtype=DataType.BFloat16)\n"
      "    fd.add_output(T7)\n";
  const std::string sum =
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
      "is_cpu=False, stride_order=[1, 0])\n"
      "    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)\n"
      "    T2 = fd.ops.mul(fd.ops.cast(T0, dtype=DataType.Float), T1)\n"
      "    T3 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)\n"
      "    fd.add_output(T3)\n";
  for (const std::string& body : {norm, sum}) {
    const CompiledScript compiled = compileScript(
        withInputs(body,
                   "    torch.randn(256, 4096, dtype=torch.bfloat16, device='cuda:0'),\n"
                   "    1e-5,\n"));
    const GeneratedKernel& kernel = onlyKernel(compiled);
    EXPECT_EQ(parameter(kernel, "T1").kind, KernelParameter::Kind::Scalar);
    EXPECT_TRUE(contains(kernel.source, "    double T1,")) << kernel.source;
    EXPECT_FALSE(contains(kernel.source, "T1.data")) << kernel.source;
    expectCompiles(kernel);
  }
}

TEST_F(KernelInputsTest, CpuScalarTensorIsAByValueParameterInTransposeKernels) {
  const CompiledScript compiled = compileScript(withInputs(
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, "
      "is_cpu=False, stride_order=[0, 1])\n"
      "    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, "
      "is_cpu=False, stride_order=[1, 0])\n"
      "    T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=True)\n"
      "    T3 = fd.ops.add(fd.ops.mul(T0, T2), T1)\n"
      "    fd.add_output(T3)\n",
      "    torch.randn(1024, 2048, device='cuda:0').as_strided((2048, 1024), (1, 2048)),\n"
      "    torch.randn(2048, 1024, device='cuda:0'),\n"
      "    torch.randn(()),\n"));
  ASSERT_EQ(compiled.kernels.size(), 1u);
  EXPECT_EQ(compiled.kernels[0].scheduler, scheduler::SchedulerType::Transpose);
  const GeneratedKernel& kernel = onlyKernel(compiled);
  EXPECT_TRUE(contains(kernel.source, "    float T2,")) << kernel.source;
  EXPECT_FALSE(contains(kernel.source, "T2.data")) << kernel.source;
  expectCompiles(kernel);
}

// Issue 43, fuzz_compile crash-809bdbf8 (tests/fuzz/corpus/
// cpu_scalar_input_as_output.py): a CPU scalar that is also a fusion output
// (add_output of the input itself) beside a reduction. The reduction
// kernels' layout left CPU scalars out of its pass-through outputs, so
// planning the output asked for an access the layout never made: "internal
// error ... T1 is not an input or output of the segment". It is written
// like the pointwise kernel writes it: the by-value parameter stored once
// into its new 0-dim buffer. Reduction, inner and outer persistent and
// Welford kernels.
TEST_F(KernelInputsTest, CpuScalarInputReturnedAsAnOutputIsWrittenByReductionKernels) {
  const std::string head =
      "    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
      "dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])\n"
      "    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, is_cpu=True)\n"
      "    T2 = fd.ops.cast(T1, dtype=DataType.Float)\n"
      "    T3 = fd.ops.div(T0, T2)\n";
  const std::string softmax =
      "    M = fd.ops.max(T3, dims=[DIM], keepdim=True, dtype=DataType.Null)\n"
      "    E = fd.ops.exp(fd.ops.sub(T3, M))\n"
      "    S = fd.ops.sum(E, dims=[DIM], keepdim=True, dtype=DataType.Null)\n"
      "    fd.add_output(fd.ops.div(E, S))\n";
  auto onAxis = [](std::string body, const std::string& dim) {
    body.replace(body.find("DIM"), 3, dim);
    body.replace(body.find("DIM"), 3, dim);
    return body;
  };
  const struct {
    std::string body;
    std::string sizes;
    scheduler::SchedulerType type;
  } cases[] = {
      {"    T4 = fd.ops.sum(T3, dims=[2], keepdim=False, dtype=DataType.Null)\n"
       "    fd.add_output(T1)\n"
       "    fd.add_output(T4)\n",
       "5, 6, 7", scheduler::SchedulerType::Reduction},
      {"    T4 = fd.ops.sum(T3, dims=[0, 1], keepdim=False, dtype=DataType.Null)\n"
       "    fd.add_output(T4)\n"
       "    fd.add_output(T1)\n",
       "512, 64, 128", scheduler::SchedulerType::Reduction},
      {onAxis(softmax, "2") + "    fd.add_output(T1)\n", "8, 16, 1024",
       scheduler::SchedulerType::InnerPersistent},
      {onAxis(softmax, "0") + "    fd.add_output(T1)\n", "256, 16, 64",
       scheduler::SchedulerType::OuterPersistent},
      {"    V, Mn = fd.ops.var_mean(T3, dims=[2], correction=1, keepdim=False)\n"
       "    fd.add_output(V)\n"
       "    fd.add_output(T1)\n",
       "8, 16, 1024", scheduler::SchedulerType::Reduction},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    const CompiledScript compiled = compileScript(
        withInputs(head + c.body, "    torch.randn((" + c.sizes +
                                      "), device='cuda:0'),\n"
                                      "    torch.full((), 4.0, dtype=torch.float64),\n"));
    const GeneratedKernel& kernel = onlyKernel(compiled);
    EXPECT_EQ(compiled.kernels[0].scheduler, c.type);
    EXPECT_EQ(parameter(kernel, "T1").kind, KernelParameter::Kind::Scalar);
    // The output parameter: T1_out, T1_out1, ... by its output index.
    const KernelParameter* out = nullptr;
    for (const KernelParameter& p : kernel.parameters) {
      if (p.segmentOutput >= 0 && p.name.rfind("T1_out", 0) == 0) out = &p;
    }
    ASSERT_NE(out, nullptr) << kernel.source;
    EXPECT_EQ(out->kind, KernelParameter::Kind::Tensor);
    EXPECT_EQ(out->rank, 0);
    EXPECT_FALSE(contains(kernel.source, "T1.data")) << kernel.source;
    EXPECT_EQ(count(kernel.source, out->name + ".data[0] = "), 1) << kernel.source;
    expectCompiles(kernel);
  }
}

TEST_F(KernelInputsTest, ExpandedInputAxisNeverEntersAnIndex) {
  // Axis 0 of T0 is expanded (stride 0 over a storage of one row): the
  // pointwise kernel's loads of T0 name only axis 1, and the reduction over
  // the expanded axis reads the row by column alone.
  const std::string inputs =
      "    torch.randn(1024, device='cuda:0').expand(64, 1024),\n"
      "    torch.randn(64, 1024, device='cuda:0'),\n";
  const CompiledScript pointwise =
      compileScript(withInputs("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], "
                               "dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n"
                               "    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
                               "dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n"
                               "    T2 = fd.ops.add(T0, T1)\n"
                               "    fd.add_output(T2)\n",
                               inputs));
  const GeneratedKernel& kernel = onlyKernel(pointwise);
  EXPECT_TRUE(contains(kernel.source, "constexpr index_t T0_s0 = (index_t)0ll;")) << kernel.source;
  EXPECT_FALSE(contains(kernel.source, "* T0_s0")) << kernel.source;
  expectCompiles(kernel);

  const CompiledScript reduction = compileScript(
      withInputs("    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], "
                 "dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n"
                 "    T1 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)\n"
                 "    fd.add_output(T1)\n",
                 "    torch.randn(1024, device='cuda:0').expand(64, 1024),\n"));
  const GeneratedKernel& reduce = onlyKernel(reduction);
  EXPECT_EQ(reduction.kernels[0].scheduler, scheduler::SchedulerType::Reduction);
  EXPECT_TRUE(contains(reduce.source, "1024 rows of 64 elements")) << reduce.source;
  expectCompiles(reduce);
}

}  // namespace
}  // namespace fuserlab::codegen
