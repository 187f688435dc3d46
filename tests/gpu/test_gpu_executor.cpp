// The GPU executor's own behaviour: launches counted per run, kernels and
// segmentation cached per input signature (and rebuilt when the signature
// changes), kernel-free segments run as views over device memory with no
// launch, and errors that say what is missing.
#include "tests/gpu/gpu_fixture.h"

#include <cmath>

#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_memory.h"
#include "core/runtime/run_plan.h"

namespace fuserlab::gpu_test {
namespace {

class GpuExecutorTest : public GpuTest {};

constexpr std::string_view kSilu = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.silu(T0)
fd.add_output(T1)
)";

TEST_F(GpuExecutorTest, CachedCallBuildsNothingAndLaunchesOnce) {
  define(kSilu);
  const runtime::GpuRunStats first = runAndCheck({random(DataType::Float, {300, 301})});
  FL_SKIP_IF_UNAVAILABLE();
  EXPECT_TRUE(first.compiledFusion);
  EXPECT_EQ(first.kernelLaunches, 1);
  EXPECT_EQ(first.kernelsBuilt, 1);
  const runtime::GpuRunStats second = runAndCheck({random(DataType::Float, {300, 301})});
  FL_SKIP_IF_UNAVAILABLE();
  EXPECT_FALSE(second.compiledFusion);
  EXPECT_EQ(second.kernelsBuilt, 0);
  EXPECT_EQ(second.kernelLaunches, 1);
  EXPECT_EQ(executor().signatureCount(), 1u);
  EXPECT_EQ(executor().totalLaunches(), 2);
}

TEST_F(GpuExecutorTest, NewSizesReuseTheSignatureNewAlignmentDoesNot) {
  define(kSilu);
  runAndCheck({random(DataType::Float, {64, 64})});
  FL_SKIP_IF_UNAVAILABLE();
  const runtime::GpuRunStats resized = runAndCheck({random(DataType::Float, {65, 63})});
  FL_SKIP_IF_UNAVAILABLE();
  EXPECT_EQ(executor().signatureCount(), 1u);
  EXPECT_EQ(resized.kernelLaunches, 1);
  runAndCheck({randomAtOffset(DataType::Float, {64, 64}, 1)});
  FL_SKIP_IF_UNAVAILABLE();
  EXPECT_EQ(executor().signatureCount(), 2u);
}

// A pointwise kernel has the extents its index math divides by (all but
// the outermost of each part) as constants: a run at other extents compiles
// its own kernel under the same signature, a run at sizes seen before
// compiles nothing, and every run matches the reference.
TEST_F(GpuExecutorTest, NewInnerExtentsBuildTheirOwnKernel) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[2])
T3 = fd.ops.mul(T0, T2)
T4 = fd.ops.sin(T3)
fd.add_output(T4)
)");
  struct Case {
    std::vector<int64_t> sizes;
    int compiles;  //!< NVRTC compiles of the run
  };
  for (const Case& c :
       std::vector<Case>{{{6, 10, 24}, 1}, {{6, 12, 40}, 1}, {{6, 10, 24}, 0}, {{3, 7, 1000}, 1}}) {
    SCOPED_TRACE(shape(c.sizes));
    const int64_t before = cache().stats().compiles;
    const runtime::GpuRunStats stats =
        runAndCheck({random(DataType::Float, c.sizes), random(DataType::Float, {c.sizes[2]})});
    FL_SKIP_IF_UNAVAILABLE();
    EXPECT_EQ(stats.kernelLaunches, 1);
    EXPECT_EQ(cache().stats().compiles - before, c.compiles);
  }
  EXPECT_EQ(executor().signatureCount(), 1u);
}

// A kernel has its inputs' strides built in (KernelParameter::builtInStrides):
// each layout of the same sizes builds its own kernel, a layout seen before
// builds none, and every run matches the reference.
TEST_F(GpuExecutorTest, InputStridesBuiltIntoTheKernelFollowTheLayout) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, False], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1])
T3 = fd.ops.mul(T0, T2)
T4 = fd.ops.silu(T3)
fd.add_output(T4)
)");
  const Tensor wide = random(DataType::Float, {64, 128});
  struct Case {
    std::string what;
    Tensor input;
    int built;
  };
  for (const Case& c :
       std::vector<Case>{{"contiguous", random(DataType::Float, {64, 96}), 1},
                         {"column-major", randomTransposed(DataType::Float, {64, 96}), 1},
                         {"rows of a wider tensor", wide.asStrided({64, 96}, {128, 1}, 0), 1},
                         {"contiguous again", random(DataType::Float, {64, 96}), 0},
                         {"one row", random(DataType::Float, {1, 96}), 1}}) {
    SCOPED_TRACE(c.what);
    const runtime::GpuRunStats stats =
        runAndCheck({c.input, random(DataType::Float, {c.input.sizes()[1]})});
    FL_SKIP_IF_UNAVAILABLE();
    EXPECT_EQ(stats.kernelsBuilt, c.built);
    EXPECT_EQ(stats.kernelLaunches, 1);
  }
}

TEST_F(GpuExecutorTest, ViewOnlyFusionLaunchesNothingAndSharesMemory) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.permute(T0, dims=[2, 0, 1])
T2 = fd.ops.slice(T1, start_indices=[1, 0, 2], end_indices=[6, 3, 9], strides=[1, 1, 2])
fd.add_output(T2)
)");
  const Tensor input = random(DataType::Float, {3, 11, 7});
  const runtime::GpuRunStats stats = runAndCheck({input});
  FL_SKIP_IF_UNAVAILABLE();
  EXPECT_EQ(stats.kernelLaunches, 0);
  EXPECT_GE(stats.hostSteps, 1);

  // The output is a view of the input's device memory.
  runtime::DeviceTensor device = runtime::toDevice(input, 0, "input");
  runtime::GpuExecutor executor(fusion(), 0, {}, &cache());
  runtime::GpuRunResult run = executor.run({device.tensor});
  ASSERT_EQ(run.outputs.size(), 1u);
  const auto* base = static_cast<const std::byte*>(device.tensor.data());
  const auto* view = static_cast<const std::byte*>(run.outputs[0].tensor.data());
  EXPECT_GE(view, base);
  EXPECT_LT(view, base + input.numel() * 4);
}

TEST_F(GpuExecutorTest, KernelThenViewSegments) {
  // A computed tensor returned both as is and reshaped and permuted (views of
  // the kernel's output).
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.exp(T0)
T2 = fd.ops.reshape(T1, new_shape=[6, 4, 10])
T3 = fd.ops.permute(T2, dims=[1, 0, 2])
fd.add_output(T1)
fd.add_output(T3)
)");
  runAndCheck({random(DataType::Float, {24, 10})});
  FL_SKIP_IF_UNAVAILABLE();
}

TEST_F(GpuExecutorTest, MatmulOperandWithoutUnitStrideIsReportedUnavailable) {
  // cuBLASLt reads matrices with a unit stride along one axis; a strided
  // slice in both axes would need a copy, which the message says.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, False], dtype=DataType.Float, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.matmul(T0, T1)
fd.add_output(T2)
)");
  runtime::GpuExecutor executor(fusion(), 0, {}, &cache());
  const Tensor storage = random(DataType::Float, {16, 32});
  const Tensor strided = storage.asStrided({8, 16}, {64, 2}, 0);
  try {
    runtime::runOnGpu(executor, {strided, random(DataType::Float, {16, 4})});
    ADD_FAILURE() << "a matmul ran with an operand cuBLASLt cannot read";
  } catch (const runtime::KernelUnavailable& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("unavailable on the cuda backend"), std::string::npos);
    EXPECT_NE(message.find("copy needed"), std::string::npos) << message;
  }
}

TEST_F(GpuExecutorTest, DeviceMemoryRoundTripKeepsStridesAndAlignment) {
  const Tensor host = randomAtOffset(DataType::Half, {5, 7}, 3).permute({1, 0});
  runtime::DeviceTensor device = runtime::toDevice(host, 0, "test");
  EXPECT_EQ(device.tensor.strides(), host.strides());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(device.tensor.data()) % 16,
            reinterpret_cast<uintptr_t>(host.data()) % 16);
  const Tensor back = runtime::toHost(device.tensor, "test");
  EXPECT_TRUE(runtime::checkTensor(back, host, "round trip").passed);
  runtime::poison(device.tensor, "test");
  const Tensor poisoned = runtime::toHost(device.tensor, "test");
  EXPECT_TRUE(std::isnan(poisoned.item({0, 0})));
}

}  // namespace
}  // namespace fuserlab::gpu_test

namespace fuserlab::gpu_test {
namespace {

// A cached run at sizes seen before replays the traced plan (no planning)
// on new input buffers: every pointer re-bound, fresh outputs, the CPU
// reference matched each time.
TEST_F(GpuExecutorTest, RunAtKnownSizesReplaysThePlanOnNewInputs) {
  define(kSilu);
  const runtime::GpuRunStats first = runAndCheck({random(DataType::Float, {300, 301})});
  FL_SKIP_IF_UNAVAILABLE();
  EXPECT_FALSE(first.replayed);
  for (int i = 0; i < 3; ++i) {
    const runtime::GpuRunStats again = runAndCheck({random(DataType::Float, {300, 301})});
    EXPECT_TRUE(again.replayed) << "run " << i;
    EXPECT_EQ(again.kernelLaunches, 1);
  }
  // New sizes plan again, then replay at those sizes too.
  EXPECT_FALSE(runAndCheck({random(DataType::Float, {31, 7})}).replayed);
  EXPECT_TRUE(runAndCheck({random(DataType::Float, {31, 7})}).replayed);
}

TEST_F(GpuExecutorTest, ReplayRebindsIntermediatesViewsAndSeveralKernels) {
  // Two kernels around a segment_set (an intermediate between them), a
  // reduction, and a sliced view of the first kernel's output.
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.exp(T0)
T2 = fd.ops.segment_set(T1)
T3 = fd.ops.sum(T2, dims=[1], keepdim=False)
T4 = fd.ops.slice(T1, start_indices=[1, 2], end_indices=[5, 9], strides=[1, 1])
fd.add_output(T3)
fd.add_output(T4)
)");
  const runtime::GpuRunStats first = runAndCheck({random(DataType::Float, {64, 96})});
  FL_SKIP_IF_UNAVAILABLE();
  EXPECT_FALSE(first.replayed);
  EXPECT_GE(first.kernelLaunches, 2);
  for (int i = 0; i < 2; ++i) {
    const runtime::GpuRunStats again = runAndCheck({random(DataType::Float, {64, 96})});
    EXPECT_TRUE(again.replayed);
    EXPECT_EQ(again.kernelLaunches, first.kernelLaunches);
  }
}

// Three kernels, each reading what the one before wrote: exp, a sum of it
// (over rows, or over columns: on sm_90 in thread-block clusters), and the
// exp over that sum.
std::string threeKernelChain(int reducedAxis) {
  return R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T1 = fd.ops.exp(T0)
T2 = fd.ops.segment_set(T1)
T3 = fd.ops.sum(T2, dims=[)" +
         std::to_string(reducedAxis) + R"(], keepdim=True)
T4 = fd.ops.segment_set(T3)
T5 = fd.ops.div(T2, T4)
fd.add_output(T5)
)";
}

// On sm_90+ the kernels after the first launch as programmatic dependents
// of the one before, which lets them start before it has completed: each
// must wait for its results first. Without a synchronize between kernels, with
// the intermediates poisoned and new inputs each run, the chain matches the
// reference run after run (replayed too, as one CUDA graph with
// programmatic edges); dependent_launch=off launches plainly.
TEST_F(GpuExecutorTest, DependentLaunchesWaitForTheKernelBefore) {
  for (const int axis : {1, 0}) {
    SCOPED_TRACE("sum over axis " + std::to_string(axis));
    define(threeKernelChain(axis));
    runAndCheck({random(DataType::Float, {64, 96})});
    FL_SKIP_IF_UNAVAILABLE();
    const bool hopper = executor().deviceSpec().computeCapabilityMajor >= 9;
    for (const bool dependent : {true, false}) {
      compiler::CompileOptions options;
      options.dependentLaunch = dependent;
      runtime::GpuExecutor executor(fusion(), 0, options, &cache());
      runtime::GpuRunOptions run;
      run.poisonOutputs = true;
      for (int i = 0; i < 3; ++i) {
        // 64 MB: the first kernel runs many waves of blocks.
        const Tensor input = random(DataType::Float, {4096, 4096});
        const runtime::DeviceTensor onDevice = runtime::toDevice(input, 0, "chain input");
        const runtime::GpuRunResult result = executor.run({onDevice.tensor}, run);
        EXPECT_EQ(result.stats.kernelLaunches, 3);
        EXPECT_EQ(result.stats.replayed, i > 0);
        // Replays queue the chain as one CUDA graph, programmatic edges and all.
        EXPECT_EQ(result.stats.graphLaunch, i > 0);
        EXPECT_EQ(result.stats.dependentLaunches, dependent && hopper ? 2 : 0)
            << "dependent_launch " << (dependent ? "on" : "off") << " on "
            << executor.deviceSpec().arch();
        if (i == 0) {  // the report says what the planned run launched
          ASSERT_NE(executor.lastReport(), nullptr);
          EXPECT_EQ(executor.lastReport()->run.get("dependent_launches")->asInt(),
                    result.stats.dependentLaunches);
        }
        ASSERT_EQ(result.outputs.size(), 1u);
        const Tensor gpu = runtime::toHost(result.outputs[0].tensor, "chain output");
        const std::vector<Tensor> reference = runtime::runReference(fusion(), {input});
        const runtime::TensorCheck check = runtime::checkTensor(gpu, reference[0], "T5");
        EXPECT_TRUE(check.passed) << "run " << i << ", dependent_launch "
                                  << (dependent ? "on" : "off") << ": " << check.message;
      }
    }
  }
}

TEST_F(GpuExecutorTest, ReplayedOutputsAreFreshBuffers) {
  define(kSilu);
  const runtime::Tensor input = random(DataType::Float, {128, 64});
  runtime::DeviceTensor onDevice = runtime::toDevice(input, 0, "test input");
  runtime::GpuExecutor executor(fusion(), 0, compiler::CompileOptions{}, &cache());
  const runtime::GpuRunResult a = executor.run({onDevice.tensor});
  const runtime::GpuRunResult b = executor.run({onDevice.tensor});
  ASSERT_TRUE(b.stats.replayed);
  // The first run's output is still held: the replay wrote elsewhere.
  EXPECT_NE(a.outputs[0].tensor.data(), b.outputs[0].tensor.data());
  const runtime::Tensor ha = runtime::toHost(a.outputs[0].tensor, "a");
  const runtime::Tensor hb = runtime::toHost(b.outputs[0].tensor, "b");
  EXPECT_TRUE(runtime::checkTensor(ha, hb, "T1").passed);
}

// A replayed run queues its kernels as one CUDA graph (PlanGraph), its
// nodes re-pointed where the run's buffers moved. Every output is held, so
// each replay writes a new buffer; run 3 reads run 1's input again. Each
// output matches the reference on its own input.
TEST_F(GpuExecutorTest, ReplayedRunsQueueOneGraphThatFollowsNewBuffers) {
  define(kSilu);
  runtime::GpuExecutor executor(fusion(), 0, compiler::CompileOptions{}, &cache());
  std::vector<Tensor> inputs;
  std::vector<runtime::DeviceTensor> onDevice;
  std::vector<runtime::GpuRunResult> results;
  for (int i = 0; i < 4; ++i) {
    if (i != 3) {
      inputs.push_back(random(DataType::Float, {300, 301}));
      onDevice.push_back(runtime::toDevice(inputs.back(), 0, "graph test input"));
    }
    const size_t which = i == 3 ? 1 : static_cast<size_t>(i);
    results.push_back(executor.run({onDevice[which].tensor}));
    EXPECT_EQ(results.back().stats.replayed, i > 0) << "run " << i;
    EXPECT_EQ(results.back().stats.graphLaunch, i > 0) << "run " << i;
    // Built at the first replay; each later one writes a new output buffer.
    EXPECT_EQ(results.back().stats.graphNodesReset, i > 1 ? 1 : 0) << "run " << i;
    EXPECT_EQ(results.back().stats.kernelLaunches, 1);
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const Tensor input = inputs[i == 3 ? 1 : i];
    const Tensor gpu = runtime::toHost(results[i].outputs[0].tensor, "graph test output");
    const runtime::TensorCheck check =
        runtime::checkTensor(gpu, runtime::runReference(fusion(), {input})[0], "T1");
    EXPECT_TRUE(check.passed) << "run " << i << ": " << check.message;
  }
  EXPECT_NE(results[1].outputs[0].tensor.data(), results[3].outputs[0].tensor.data());
}

// A loop that drops each run's outputs gets the same buffers every run
// (ReplayPlan::bind takes them in the order the pool hands back what was
// freed), so its graph runs as built, with nothing re-pointed: here two
// outputs of one size class, which taken in the other order would swap
// places every run.
TEST_F(GpuExecutorTest, ReplayThatDropsItsOutputsReusesTheGraphAsIs) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T2 = fd.ops.cast(T0, dtype=DataType.Float)
T3 = fd.ops.cast(T1, dtype=DataType.Float)
T4 = fd.ops.add(T2, T3)
T5 = fd.ops.mul(T4, T2)
T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
T7 = fd.ops.cast(T4, dtype=DataType.BFloat16)
fd.add_output(T6)
fd.add_output(T7)
)");
  const Tensor a = random(DataType::BFloat16, {256, 1024});
  const Tensor b = random(DataType::BFloat16, {256, 1024});
  const runtime::DeviceTensor da = runtime::toDevice(a, 0, "input a");
  const runtime::DeviceTensor db = runtime::toDevice(b, 0, "input b");
  runtime::GpuExecutor executor(fusion(), 0, compiler::CompileOptions{}, &cache());
  const std::vector<Tensor> reference = runtime::runReference(fusion(), {a, b});
  for (int i = 0; i < 5; ++i) {
    const runtime::GpuRunResult result = executor.run({da.tensor, db.tensor});
    EXPECT_EQ(result.stats.graphLaunch, i > 0) << "run " << i;
    EXPECT_EQ(result.stats.graphNodesReset, 0) << "run " << i;
    ASSERT_EQ(result.outputs.size(), 2u);
    for (size_t o = 0; o < 2; ++o) {
      const Tensor gpu = runtime::toHost(result.outputs[o].tensor, "output");
      const runtime::TensorCheck check = runtime::checkTensor(gpu, reference[o], "output");
      EXPECT_TRUE(check.passed) << "run " << i << ", output " << o << ": " << check.message;
    }
  }  // each run's outputs dropped here
}

// graph_launch=off, a caller's hook between launches (the benchmark's
// per-launch events) and a synchronize after each kernel all replay with one
// launch call per kernel.
TEST_F(GpuExecutorTest, ReplayWithoutAGraphWhenOffOrLaunchesMustStandApart) {
  define(threeKernelChain(1));
  const Tensor input = random(DataType::Float, {64, 96});
  const runtime::DeviceTensor onDevice = runtime::toDevice(input, 0, "chain input");
  const std::vector<Tensor> reference = runtime::runReference(fusion(), {input});
  struct Case {
    std::string name;
    bool graphOption;
    runtime::GpuRunOptions run;
  };
  std::vector<Case> cases(3);
  cases[0] = {"graph_launch=off", false, {}};
  cases[1] = {"launchEachApart", true, {}};
  cases[1].run.launchEachApart = true;
  cases[2] = {"synchronizeEachKernel", true, {}};
  cases[2].run.synchronizeEachKernel = true;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    compiler::CompileOptions options;
    options.graphLaunch = c.graphOption;
    runtime::GpuExecutor executor(fusion(), 0, options, &cache());
    executor.run({onDevice.tensor});
    FL_SKIP_IF_UNAVAILABLE();
    size_t hooks = 0;
    runtime::GpuRunOptions run = c.run;
    run.afterLaunch = [&hooks](size_t, const std::string&) { ++hooks; };
    const runtime::GpuRunResult again = executor.run({onDevice.tensor}, run);
    EXPECT_TRUE(again.stats.replayed);
    EXPECT_FALSE(again.stats.graphLaunch);
    EXPECT_EQ(hooks, 3u);
    const Tensor gpu = runtime::toHost(again.outputs[0].tensor, "chain output");
    EXPECT_TRUE(runtime::checkTensor(gpu, reference[0], "T5").passed);
  }
}

// A replay keeps each launch's workspace (the captured buffer) rather than
// taking a pool block: a cross-grid reduction's semaphores are zeroed once,
// when the buffer is allocated, and reset by the kernel's last block.
TEST_F(GpuExecutorTest, ReplayKeepsTheCapturedWorkspace) {
  runtime::setCudaDevice(0, "the workspace test");
  std::vector<float> storage(64);
  const Tensor x =
      Tensor::borrow(storage.data(), DataType::Float, {64}, {1}, 0, runtime::DeviceKind::Cuda, 0);
  runtime::Plan plan;
  runtime::PlannedLaunch launch;
  launch.what = "segment 0";
  launch.arguments.addTensor(x.data(), x.sizes(), x.strides());
  launch.workspace = std::make_shared<runtime::DeviceBuffer>(4096, 0, "a workspace");
  launch.arguments.addPointer(launch.workspace->data());
  plan.launches.push_back(launch);
  const runtime::DeviceBuffer* captured = launch.workspace.get();
  std::string why;
  auto replay = runtime::ReplayPlan::capture(plan, {x}, {}, &why);
  ASSERT_NE(replay, nullptr) << why;
  plan = runtime::Plan{};
  launch = runtime::PlannedLaunch{};
  for (int i = 0; i < 3; ++i) {
    // A block of the workspace's size taken from the pool in between.
    const runtime::DeviceBuffer other(4096, 0, "another buffer");
    runtime::Plan& bound = replay->bind({x}, 0, false);
    EXPECT_EQ(bound.launches[0].workspace.get(), captured) << "bind " << i;
    EXPECT_EQ(bound.launches[0].arguments.pointerAt(1), captured->data()) << "bind " << i;
    replay->release();
  }
}

// Two executors of one fusion, on GPUs 0 and 1 of one process, sharing the
// kernel cache, their runs interleaved (what `bench --device cuda:1` and a
// process driving two GPUs do): each loads its kernels into its own device's
// context, replays as a graph on that device, and writes outputs there that
// match the reference, run after run, with new inputs each run. Needs two
// GPUs.
TEST_F(GpuExecutorTest, ExecutorsOnTwoGpusReplayEachOnItsOwn) {
  if (runtime::cudaDeviceCount() < 2) GTEST_SKIP() << "needs two GPUs";
  define(threeKernelChain(1));
  runtime::GpuExecutor first(fusion(), 0, compiler::CompileOptions{}, &cache());
  runtime::GpuExecutor second(fusion(), 1, compiler::CompileOptions{}, &cache());
  for (int i = 0; i < 4; ++i) {
    for (int device : {1, 0}) {
      SCOPED_TRACE("run " + std::to_string(i) + " on cuda:" + std::to_string(device));
      runtime::GpuExecutor& executor = device == 0 ? first : second;
      const Tensor input = random(DataType::Float, {512, 700});
      const runtime::DeviceTensor onDevice = runtime::toDevice(input, device, "input");
      const runtime::GpuRunResult result = executor.run({onDevice.tensor});
      FL_SKIP_IF_UNAVAILABLE();
      EXPECT_EQ(result.stats.kernelLaunches, 3);
      EXPECT_EQ(result.stats.replayed, i > 0);
      EXPECT_EQ(result.stats.graphLaunch, i > 0);
      ASSERT_EQ(result.outputs.size(), 1u);
      EXPECT_EQ(result.outputs[0].tensor.device().toString(), "cuda:" + std::to_string(device));
      const Tensor gpu = runtime::toHost(result.outputs[0].tensor, "output");
      const runtime::TensorCheck check =
          runtime::checkTensor(gpu, runtime::runReference(fusion(), {input})[0], "T5");
      EXPECT_TRUE(check.passed) << check.message;
    }
  }
}

}  // namespace
}  // namespace fuserlab::gpu_test
