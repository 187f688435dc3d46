// Every params variant the tuner may choose for the normalization examples
// runs correctly (issue 4's acceptance): for each tunable segment, the tuner's
// search space (tuner/search_space.h, filtered by the scheduler's own checks)
// is grouped by the choices the issue names — vectorization factor,
// persistent storage, projection and persistent batch size — and the first
// accepted variant of every group runs on GPU 0 with its params pinned,
// poisoned outputs, compared with the CPU reference on random non-zero
// inputs. Skips without a GPU.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/cuda/cuda_device.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/reference/reference_run.h"
#include "core/runtime/gpu_executor.h"
#include "core/tensor/result_check.h"
#include "tests/source_dir.h"
#include "tuner/search_space.h"
#include "tuner/tuning_target.h"

namespace fuserlab::tuner {
namespace {

// The knobs issue 4 names; a group is one combination of their values.
const std::vector<std::string> kGroupKnobs = {"vectorization_factor", "persistent_storage",
                                              "project_persistent_buffers",
                                              "persistent_batch_size"};

std::string groupOf(const SearchSpace& space, const Variant& v) {
  std::string key;
  for (size_t k = 0; k < space.knobs.size(); ++k) {
    for (const std::string& name : kGroupKnobs) {
      if (space.knobs[k].name == name) {
        key += name + "=" + std::to_string(space.knobs[k].values.at(v.point.at(k))) + " ";
      }
    }
  }
  return key;
}

runtime::Arguments copies(const runtime::Arguments& inputs) {
  runtime::Arguments out;
  for (const runtime::Argument& a : inputs) {
    const auto* t = std::get_if<runtime::Tensor>(&a);
    if (t == nullptr) {
      out.push_back(a);
      continue;
    }
    runtime::Tensor c = runtime::Tensor::emptyStrided(t->dtype(), t->sizes(), t->strides());
    runtime::copyInto(*t, c);
    out.emplace_back(c);
  }
  return out;
}

class GpuTunerVariantsTest : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
};

TEST_P(GpuTunerVariantsTest, EveryChoiceGroupMatchesTheReference) {
  if (runtime::cudaDeviceCount() == 0) {
    GTEST_SKIP() << "no CUDA device: " << runtime::cudaUnavailableReason();
  }
  const auto [file, sizes] = GetParam();
  const frontend::Script script =
      frontend::readScriptFile(fuserlab::test::sourceDir() + "/resources/examples/" + file);
  const ir::Fusion& fusion = script.fusion();
  const std::vector<frontend::InputSpec> specs = frontend::parseInputsOption(sizes);
  const runtime::Arguments inputs = frontend::makeInputs(specs, 11);
  const std::vector<runtime::Tensor> reference = runtime::runReference(fusion, copies(inputs));
  const auto spec = runtime::queryCudaDevice(0);
  ASSERT_TRUE(spec.has_value());

  const runtime::CompiledFusion compiled = runtime::compileFusion(
      fusion, compiler::CompileOptions{}, *spec, frontend::makeInputShapes(specs), nullptr, false);
  const std::vector<int> segments = tunableSegments(compiled);
  ASSERT_FALSE(segments.empty()) << file;
  int ran = 0;
  for (int segment : segments) {
    const auto target = makeTuningTarget(fusion, compiler::CompileOptions{}, *spec,
                                         frontend::makeInputShapes(specs), segment);
    const SearchSpace space = buildSearchSpace(target->segmentFusion(), target->scheduler,
                                               target->bound.info, target->defaultParams);
    std::map<std::string, const Variant*> groups;
    for (const Variant& v : space.variants) groups.emplace(groupOf(space, v), &v);
    for (const auto& [group, variant] : groups) {
      SCOPED_TRACE(std::string(file) + " segment " + std::to_string(segment) + ": " +
                   variant->label);
      PinnedParamsProvider pinned(target->key, variant->params);
      runtime::GpuExecutor executor(fusion, 0, compiler::CompileOptions{});
      executor.setHeuristicProvider(&pinned);
      runtime::GpuRunOptions options;
      options.poisonOutputs = true;
      options.synchronizeEachKernel = true;
      const runtime::HostRunResult result = runtime::runOnGpu(executor, copies(inputs), options);
      const report::CompileReport* report = executor.lastReport();
      ASSERT_NE(report, nullptr);
      EXPECT_EQ(report->segments.at(static_cast<size_t>(segment)).paramsSource, kSourceTuner);
      ASSERT_EQ(result.outputs.size(), reference.size());
      for (size_t i = 0; i < reference.size(); ++i) {
        const runtime::TensorCheck check =
            runtime::checkTensor(result.outputs[i], reference[i], fusion.outputs()[i].val->name());
        EXPECT_TRUE(check.passed) << check.message;
      }
      ++ran;
    }
  }
  EXPECT_GT(ran, 0);
  std::printf("%s at %s: %d variant groups ran\n", file, sizes, ran);
}

// The scripts' own sizes (their broadcasts name concrete shapes), small
// enough for a quick CPU reference.
INSTANTIATE_TEST_SUITE_P(
    Normalization, GpuTunerVariantsTest,
    ::testing::Values(std::make_pair("layer_norm.py", "512x4096:bf16,4096:bf16,4096:bf16"),
                      std::make_pair("rms_norm.py", "4x256x2048:bf16,2048:bf16"),
                      std::make_pair("softmax.py", "2x16x256x256:bf16"),
                      std::make_pair("seed001_nanogpt_layer_norm.py",
                                     "16x128x1600:bf16,1600:bf16,1600:bf16")),
    [](const auto& test) {
      std::string name = test.param.first;
      return name.substr(0, name.find('.'));
    });

}  // namespace
}  // namespace fuserlab::tuner
