// Issue 43 defect 1: fusions of 100,000 ops. The expression emitter walks a
// chain without recursing (it overflowed an 8 MB stack past about 7,000
// ops), the CPU reference runs it, and a kernel too large for NVRTC (source
// bytes) or for CUDA (parameter bytes) is refused with a UserError that
// names its size and the limit (codegen.h), not handed to NVRTC.
#include <pthread.h>

#include <chrono>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "core/codegen/codegen.h"
#include "core/codegen/expression_emitter.h"
#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/reference/reference_run.h"
#include "core/scheduler/device_spec.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

// T{i+1} = add/mul/sub(T{i}, c): x -> (x + 1) * 0.5 - 1 every three ops.
std::string chainScript(int ops) {
  std::string text =
      "from nvfuser_direct import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n"
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n";
  static const char* const kOps[] = {"add", "mul", "sub"};
  static const char* const kConstants[] = {"1.0", "0.5", "1.0"};
  for (int i = 0; i < ops; ++i) {
    text += "    T" + std::to_string(i + 1) + " = fd.ops." + kOps[i % 3] + "(T" +
            std::to_string(i) + ", " + kConstants[i % 3] + ")\n";
  }
  text += "    fd.add_output(T" + std::to_string(ops) + ")\n";
  text += "inputs = [torch.randn(256, dtype=torch.float32, device='cuda:0')]\n";
  return text;
}

// `outputs` outputs T{i+1} = add(T0, i), each its own kernel parameter.
std::string manyOutputsScript(int outputs) {
  std::string text =
      "from nvfuser_direct import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n"
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n";
  for (int i = 0; i < outputs; ++i) {
    const std::string name = "T" + std::to_string(i + 1);
    text += "    " + name + " = fd.ops.add(T0, " + std::to_string(i) + ".0)\n";
    text += "    fd.add_output(" + name + ")\n";
  }
  text += "inputs = [torch.randn(256, dtype=torch.float32, device='cuda:0')]\n";
  return text;
}

// Runs `work` on a thread with a stack of `bytes`, so that a walk that
// recurses once per op overflows it whatever the test runner's ulimit -s.
void onStackOf(size_t bytes, const std::function<void()>& work) {
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, bytes), 0);
  pthread_t thread;
  auto run = [](void* argument) -> void* {
    (*static_cast<const std::function<void()>*>(argument))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attributes, run, const_cast<std::function<void()>*>(&work)),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
}

TEST(LongFusionTest, PadOfAnExtentOf50000NestedAddsIndexesWithoutRecursing) {
  // S50000 = S0 + 1 + ... + 1 is the extent the pad's index is offset
  // against: ExpressionEmitter::indexSum split it recursively, one frame per
  // add, and overflowed 8 MB (issue 43). It folds to S0 + 50000.
  std::string text =
      "from nvfuser_direct import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n"
      "    S0 = fd.define_scalar(None, dtype=DataType.Int)\n";
  for (int i = 0; i < 50000; ++i) {
    text += "    S" + std::to_string(i + 1) + " = fd.ops.add(S" + std::to_string(i) + ", 1)\n";
  }
  text +=
      "    T1 = fd.ops.full(shape=[S50000], fill_value=1.0, dtype=DataType.Float)\n"
      "    T2 = fd.ops.pad(T1, [1, 1])\n"
      "    fd.add_output(T2)\n"
      "inputs = [3]\n";
  std::string source;
  onStackOf(size_t{8} << 20, [&] {
    const CompiledScript compiled = compileScript(text);
    source = onlyKernel(compiled).source;
  });
  EXPECT_TRUE(contains(source, "50000")) << source.substr(0, 3000);
}

TEST(LongFusionTest, SegmentOfACatOf3000InputsCopiesItsExtentWithoutRecursing) {
  // The cat's extent is 2,999 nested adds of its inputs' extents; the
  // segmenter copied it into the segment recursively (a cat of 50,000
  // inputs overflowed 8 MB); 3,000 of them overflowed 256 KiB.
  std::string text =
      "from nvfuser_direct import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n";
  std::string inputs, sizes;
  for (int i = 0; i < 3000; ++i) {
    text += "    T" + std::to_string(i) +
            " = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n";
    inputs += (i ? ", T" : "T") + std::to_string(i);
    sizes += (i ? ",2:f32" : "2:f32");
  }
  text += "    C = fd.ops.cat([" + inputs + "], dim=0)\n    fd.add_output(C)\n";
  const frontend::Script script = frontend::readScript(text, "cat.py");
  const runtime::Arguments args = frontend::makeInputShapes(frontend::parseInputsOption(sizes));
  size_t segments = 0;
  onStackOf(size_t{256} << 10, [&] {
    const runtime::CompiledFusion compiled =
        runtime::compileFusion(script.fusion(), compiler::CompileOptions{},
                               *scheduler::findBuiltinDevice("h100"), args, nullptr,
                               /*withTextDumps=*/false);
    segments = compiled.report.segments.size();
  });
  EXPECT_EQ(segments, 1u);
}

TEST(LongFusionTest, ExpressionEmitterComputesA100000OpChainWithoutRecursing) {
  const frontend::Script script = frontend::readScript(chainScript(100000), "chain.py");
  const ir::Fusion& fusion = script.fusion();
  const auto* last = fusion.outputVals().at(0)->as<ir::TensorView>();
  ASSERT_NE(last, nullptr);
  ExpressionHooks hooks;
  hooks.loadLeaf = [](const ir::TensorView* tv, const ElementIndex&) { return tv->name() + "_in"; };
  hooks.symbolicScalar = [](const ir::Scalar* s) { return s->name(); };
  ExpressionEmitter emitter(fusion, hooks, /*indexed=*/true);
  EXPECT_EQ(emitter.value(last, {"i"}), "T100000_v");
  const std::string code = emitter.takeCode();
  EXPECT_EQ(count(code, "\n"), 100000);
  // Operands before the ops that read them, first to last.
  EXPECT_LT(code.find("T1_v = "), code.find("T2_v = "));
  EXPECT_LT(code.find("T99999_v = "), code.find("T100000_v = "));
  EXPECT_NE(code.find("T0_in"), std::string::npos);
}

TEST(LongFusionTest, ReferenceRunsA100000OpChain) {
  const frontend::Script script = frontend::readScript(chainScript(100000), "chain.py");
  ASSERT_TRUE(script.inputs.has_value());
  const runtime::Arguments inputs = frontend::makeInputs(*script.inputs, 1);
  const std::vector<runtime::Tensor> outputs = runtime::runReference(script.fusion(), inputs);
  ASSERT_EQ(outputs.size(), 1u);
  // x -> 0.5 x - 0.5 converges to -1 within float precision long before
  // op 99,999; the last add makes it 0.
  const runtime::Tensor& out = outputs[0];
  ASSERT_EQ(out.numel(), 256);
  const float* values = out.dataAs<float>();
  for (int64_t i = 0; i < out.numel(); ++i) EXPECT_EQ(values[i], 0.0f) << i;
}

TEST(LongFusionTest, AKernelPastTheSourceLimitIsRefusedBeforeNvrtc) {
  const CompiledScript compiled = compileScript(chainScript(100000));
  ASSERT_EQ(compiled.kernels.size(), 1u);
  const runtime::SegmentKernel& segment = compiled.kernels[0];
  EXPECT_FALSE(segment.kernel.has_value());
  EXPECT_TRUE(contains(segment.error, "bytes of CUDA source")) << segment.error;
  EXPECT_TRUE(contains(segment.error, "at most " + std::to_string(kMaxKernelSourceBytes)))
      << segment.error;
}

TEST(LongFusionTest, AKernelPastTheParameterSpaceIsRefused) {
  // 20,000 outputs: 20,001 fl::Tensor<float, 1> parameters of 24 bytes.
  const CompiledScript compiled = compileScript(manyOutputsScript(20000));
  ASSERT_EQ(compiled.kernels.size(), 1u);
  const runtime::SegmentKernel& segment = compiled.kernels[0];
  EXPECT_FALSE(segment.kernel.has_value());
  EXPECT_TRUE(contains(segment.error, "takes 20001 parameters (480024 bytes)")) << segment.error;
  EXPECT_TRUE(contains(segment.error, std::to_string(kMaxKernelParameterBytes))) << segment.error;
}

TEST(LongFusionTest, ACatOf12000InputsIsRefusedForItsParametersInSeconds) {
  // Emitting the kernel before this refusal was quadratic in the inputs
  // (each branch spelled the sum of the extents before it), and so was
  // tracing the pointwise reference through the cat (each input summed the
  // extents before it and built the cat's full text as a reason): a cat of
  // 8,000 took 58 s and 12 GB, one of 12,000 minutes and more memory than
  // CI has. Now both are linear and the parameter space is checked before
  // any code is emitted.
  constexpr int kInputs = 12000;
  std::string text =
      "from nvfuser_direct import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n";
  std::string inputs, sizes;
  for (int i = 0; i < kInputs; ++i) {
    text += "    T" + std::to_string(i) +
            " = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
            "dtype=DataType.Float)\n";
    inputs += (i ? ", T" : "T") + std::to_string(i);
    sizes += (i ? ",4x5:f32" : "4x5:f32");
  }
  text += "    C = fd.ops.cat([" + inputs + "], dim=1)\n    fd.add_output(C)\n";
  const auto start = std::chrono::steady_clock::now();
  const CompiledScript compiled = compileScript(text, sizes);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(compiled.kernels.size(), 1u);
  const runtime::SegmentKernel& segment = compiled.kernels[0];
  EXPECT_FALSE(segment.kernel.has_value());
  // 12,000 rank-2 inputs and the output: 40 bytes each.
  EXPECT_TRUE(contains(segment.error, "takes 12001 parameters (480040 bytes)")) << segment.error;
  // About 1.5 s here (2 cores); minutes before.
  EXPECT_LT(seconds, 30.0);
}

TEST(LongFusionTest, AScalarOfMoreNestedOpsThanTheLimitIsRefused) {
  // S1000 = S0 + 1 + 1 + ...: one nested C++ expression in the kernel.
  std::string text =
      "from nvfuser_direct import FusionDefinition, DataType\n"
      "with FusionDefinition() as fd:\n"
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    S0 = fd.define_scalar(None, dtype=DataType.Double)\n";
  for (int i = 0; i < 1000; ++i) {
    text += "    S" + std::to_string(i + 1) + " = fd.ops.add(S" + std::to_string(i) + ", 1.0)\n";
  }
  text +=
      "    T1 = fd.ops.mul(T0, S1000)\n"
      "    fd.add_output(T1)\n"
      "inputs = [torch.randn(256, dtype=torch.float32, device='cuda:0'), 2.0]\n";
  const CompiledScript compiled = compileScript(text);
  ASSERT_EQ(compiled.kernels.size(), 1u);
  const runtime::SegmentKernel& segment = compiled.kernels[0];
  EXPECT_FALSE(segment.kernel.has_value());
  EXPECT_TRUE(contains(
      segment.error,
      "more than " + std::to_string(ExpressionEmitter::kMaxScalarExprDepth) + " nested scalar ops"))
      << segment.error;
}

}  // namespace
}  // namespace fuserlab::codegen
