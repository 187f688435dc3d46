// The tuning worker's validation on a GPU (tuner/worker.h, issue 48): the
// default variant is checked against the CPU reference and its outputs kept
// on the GPU; every other variant is compared with those on the GPU
// (tuner/output_comparison.h), and a wrong variant (the test switch
// FUSERLAB_TUNER_WRONG_VARIANT) is still rejected, by either check. The
// worker runs in this process through serveWorker, its requests and replies
// as JSON lines. Also the comparison itself on hand-made device tensors.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_memory.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/tensor/random_fill.h"
#include "core/tensor/result_check.h"
#include "tests/source_dir.h"
#include "tuner/output_comparison.h"
#include "tuner/search_space.h"
#include "tuner/tuning_target.h"
#include "tuner/worker.h"

namespace fuserlab::tuner {
namespace {

using report::Json;

class GpuTunerValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (runtime::cudaDeviceCount() == 0) {
      GTEST_SKIP() << "no CUDA device: " << runtime::cudaUnavailableReason();
    }
  }
  void TearDown() override { ::unsetenv("FUSERLAB_TUNER_WRONG_VARIANT"); }

  // Loads `file` at `sizes` and its segment-0 search space.
  void load(const std::string& file, const std::string& sizes) {
    script_.emplace(
        frontend::readScriptFile(fuserlab::test::sourceDir() + "/resources/examples/" + file));
    specs_ = frontend::parseInputsOption(sizes);
    const auto spec = runtime::queryCudaDevice(0);
    ASSERT_TRUE(spec.has_value());
    target_ = makeTuningTarget(script_->fusion(), compiler::CompileOptions{}, *spec,
                               frontend::makeInputShapes(specs_), 0);
    space_ = buildSearchSpace(target_->segmentFusion(), target_->scheduler, target_->bound.info,
                              target_->defaultParams);
    ASSERT_GE(space_.variants.size(), 3u) << file;
  }

  // The worker's greeting and one reply per variant of `variants`.
  std::vector<Json> serve(const std::vector<size_t>& variants, bool compareWithDefault = true) {
    WorkerSetup setup;
    setup.fusion = &script_->fusion();
    setup.hostInputs = frontend::makeInputs(specs_, 7);
    setup.device = 0;
    setup.segment = 0;
    setup.sampling.warmup = 1;
    setup.sampling.minSamples = 3;
    setup.sampling.maxSamples = 5;
    setup.compareWithDefault = compareWithDefault;
    std::ostringstream requests;
    for (size_t id : variants) {
      Json request = Json::object();
      request.set("variant", static_cast<int64_t>(id));
      request.set("params", scheduler::paramsToJson(space_.variants[id].params));
      requests << request.dump(-1) << "\n";
    }
    std::istringstream in(requests.str());
    std::ostringstream out;
    EXPECT_EQ(serveWorker(setup, in, out), 0) << out.str();
    std::vector<Json> lines;
    std::istringstream replies(out.str());
    std::string line;
    while (std::getline(replies, line)) lines.push_back(Json::parse(line));
    EXPECT_EQ(lines.size(), variants.size() + 1) << out.str();
    return lines;
  }

  static std::string checkOf(const Json& reply) {
    const Json* check = reply.get("check");
    return check != nullptr ? check->asString() : "";
  }
  static std::string errorOf(const Json& reply) {
    const Json* error = reply.get("error");
    return error != nullptr ? error->asString() : "";
  }

  std::optional<frontend::Script> script_;
  std::vector<frontend::InputSpec> specs_;
  std::unique_ptr<TuningTarget> target_;
  SearchSpace space_;
};

TEST_F(GpuTunerValidationTest, DefaultAgainstTheReferenceOthersAgainstItsOutputsOnTheGpu) {
  load("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  const std::vector<Json> lines = serve({0, 1, 2});
  ASSERT_EQ(lines.size(), 4u);
  const Json* bandwidth = lines[0].get("copy_bytes_per_s");
  ASSERT_NE(bandwidth, nullptr) << lines[0].dump(-1);
  EXPECT_GT(bandwidth->asDouble(), 1e11);
  EXPECT_EQ(checkOf(lines[1]), kCheckCpuReference) << lines[1].dump(-1);
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(errorOf(lines[i]), "") << lines[i].dump(-1);
    EXPECT_NE(lines[i].get("samples"), nullptr) << lines[i].dump(-1);
  }
  EXPECT_EQ(checkOf(lines[2]), kCheckDefaultOutputs) << lines[2].dump(-1);
  EXPECT_EQ(checkOf(lines[3]), kCheckDefaultOutputs) << lines[3].dump(-1);
}

// Correct variants of reductions (float accumulation in another order) pass
// the comparison with the default's outputs under the reference tolerances.
TEST_F(GpuTunerValidationTest, EveryVariantOfANormalizationPassesTheGpuComparison) {
  load("rms_norm.py", "4x256x2048:bf16,2048:bf16");
  std::vector<size_t> variants;
  for (size_t id = 0; id < space_.variants.size() && id < 12; ++id) variants.push_back(id);
  const std::vector<Json> lines = serve(variants);
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(errorOf(lines[i]), "") << lines[i].dump(-1);
    EXPECT_EQ(checkOf(lines[i]), i == 1 ? kCheckCpuReference : kCheckDefaultOutputs);
  }
}

TEST_F(GpuTunerValidationTest, AWrongVariantIsRejectedByTheGpuComparison) {
  load("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  ::setenv("FUSERLAB_TUNER_WRONG_VARIANT", "2", 1);
  const std::vector<Json> lines = serve({0, 1, 2, 3});
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(errorOf(lines[2]), "") << lines[2].dump(-1);
  const std::string error = errorOf(lines[3]);
  EXPECT_NE(error.find("wrong results"), std::string::npos) << error;
  EXPECT_NE(error.find("1 of 2818048 elements differ from the default variant's"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("first at [255, 11007]"), std::string::npos) << error;
  EXPECT_EQ(checkOf(lines[3]), kCheckDefaultOutputs);
  EXPECT_EQ(lines[3].get("samples"), nullptr);
  // The worker goes on: the next variant is measured.
  EXPECT_EQ(errorOf(lines[4]), "") << lines[4].dump(-1);
}

TEST_F(GpuTunerValidationTest, AWorkerStartingOnAnotherVariantRunsTheDefaultFirst) {
  load("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  ::setenv("FUSERLAB_TUNER_WRONG_VARIANT", "1", 1);
  const std::vector<Json> lines = serve({2, 1});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(errorOf(lines[1]), "") << lines[1].dump(-1);
  EXPECT_EQ(checkOf(lines[1]), kCheckDefaultOutputs);
  EXPECT_NE(errorOf(lines[2]).find("differ from the default variant's"), std::string::npos)
      << lines[2].dump(-1);
}

TEST_F(GpuTunerValidationTest, AFailedDefaultLeavesEveryVariantToTheReference) {
  load("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  ::setenv("FUSERLAB_TUNER_WRONG_VARIANT", "0", 1);
  const std::vector<Json> lines = serve({0, 1});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(errorOf(lines[1]).find("(reference)"), std::string::npos) << lines[1].dump(-1);
  EXPECT_EQ(checkOf(lines[1]), kCheckCpuReference);
  EXPECT_EQ(errorOf(lines[2]), "") << lines[2].dump(-1);
  EXPECT_EQ(checkOf(lines[2]), kCheckCpuReference);
}

TEST_F(GpuTunerValidationTest, AWrongVariantIsRejectedByTheReferenceWhenAskedFor) {
  load("silu_mul.py", "256x11008:bf16,256x11008:bf16");
  ::setenv("FUSERLAB_TUNER_WRONG_VARIANT", "1", 1);
  const std::vector<Json> lines = serve({0, 1}, /*compareWithDefault=*/false);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(checkOf(lines[2]), kCheckCpuReference);
  EXPECT_NE(errorOf(lines[2]).find("wrong results"), std::string::npos) << lines[2].dump(-1);
}

// The comparison on hand-made tensors: equal within the tolerance passes; a
// value off by more, a NaN where the default has a number, and one integer
// off by one fail, naming the first mismatch; strides differ freely.
TEST_F(GpuTunerValidationTest, DeviceComparerAppliesTheReferenceRule) {
  const auto spec = runtime::queryCudaDevice(0);
  ASSERT_TRUE(spec.has_value());
  DeviceComparer comparer(*spec, 0);
  runtime::Tensor expected = runtime::Tensor::empty(ir::DataType::Float, {64, 33});
  runtime::fillNormal(expected, 3);
  runtime::Tensor actual = expected.clone();
  // Within rtol 1e-5: passes.
  actual.set({5, 7}, expected.item({5, 7}) * (1 + 1e-7));
  const runtime::Tolerance tol = runtime::toleranceFor(ir::DataType::Float);
  auto onDevice = [](const runtime::Tensor& t) { return runtime::toDevice(t, 0, "test"); };
  runtime::DeviceTensor e = onDevice(expected);
  const double maxAbs = comparer.maxAbs(e.tensor);
  double hostMax = 0;
  for (int64_t i = 0; i < 64; ++i) {
    for (int64_t j = 0; j < 33; ++j) hostMax = std::max(hostMax, std::fabs(expected.item({i, j})));
  }
  EXPECT_DOUBLE_EQ(maxAbs, hostMax);
  EXPECT_TRUE(comparer.compare(onDevice(actual).tensor, e.tensor, "T1", tol, maxAbs).passed);
  // Off by 1e-3 at [9, 2], NaN at [40, 0]: two mismatches, the first named.
  actual.set({9, 2}, expected.item({9, 2}) + 1e-3);
  actual.set({40, 0}, std::numeric_limits<double>::quiet_NaN());
  const runtime::TensorCheck bad =
      comparer.compare(onDevice(actual).tensor, e.tensor, "T1", tol, maxAbs);
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.mismatches, 2);
  EXPECT_EQ(bad.worstIndex, (std::vector<int64_t>{9, 2}));
  EXPECT_NE(bad.message.find("T1: 2 of 2112 elements differ"), std::string::npos) << bad.message;
  // A transposed layout of the same values compares equal.
  runtime::Tensor columns = runtime::Tensor::emptyStrided(ir::DataType::Float, {64, 33}, {1, 64});
  runtime::copyInto(expected, columns);
  EXPECT_TRUE(comparer.compare(onDevice(columns).tensor, e.tensor, "T1", tol, maxAbs).passed);
  // Integers: exact.
  runtime::Tensor ints = runtime::Tensor::empty(ir::DataType::Int, {1000});
  runtime::fillRandint(ints, 5, 1, 1000);
  runtime::Tensor other = ints.clone();
  other.set({999}, ints.item({999}) + 1);
  const runtime::DeviceTensor i = onDevice(ints);
  EXPECT_TRUE(comparer
                  .compare(onDevice(ints.clone()).tensor, i.tensor, "T2",
                           runtime::toleranceFor(ir::DataType::Int), 0)
                  .passed);
  const runtime::TensorCheck off = comparer.compare(onDevice(other).tensor, i.tensor, "T2",
                                                    runtime::toleranceFor(ir::DataType::Int), 0);
  EXPECT_FALSE(off.passed);
  EXPECT_EQ(off.worstIndex, (std::vector<int64_t>{999}));
  EXPECT_NE(off.message.find("(exact)"), std::string::npos) << off.message;
}

}  // namespace
}  // namespace fuserlab::tuner
