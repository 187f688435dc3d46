// The fixture of the GPU tests: a fusion read from the body of an nvFuser
// definition, fresh random non-zero inputs, and a run on GPU 0 compared with
// the CPU reference on the same inputs (outputs poisoned first, tolerances
// by dtype). Every test skips, saying why, where there is no GPU, and where
// the segment's emitter reports it is not available yet.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cuda/cuda_device.h"
#include "core/frontend/script.h"
#include "core/reference/reference_run.h"
#include "core/runtime/gpu_executor.h"
#include "core/scheduler/heuristic_provider.h"
#include "core/tensor/random_fill.h"
#include "core/tensor/result_check.h"

namespace fuserlab::gpu_test {

using ir::DataType;
using runtime::Tensor;

//! "[a, b, c]" for script text.
inline std::string shape(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return out + "]";
}

//! Fixed params for every segment of one scheduler, as the tuner or the
//! database would supply them (the report's params_source is "tuner").
template <class Params>
class FixedParams : public scheduler::HeuristicProvider {
 public:
  FixedParams(scheduler::SchedulerType type, Params params)
      : type_(type), params_(std::move(params)) {}
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion&, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo&) const override {
    if (type != type_) return std::nullopt;
    return scheduler::ProvidedParams{scheduler::HeuristicParams(params_), "tuner", 0};
  }

 private:
  scheduler::SchedulerType type_;
  Params params_;
};

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (runtime::cudaDeviceCount() == 0) {
      GTEST_SKIP() << "no CUDA device, GPU test skipped: " << runtime::cudaUnavailableReason();
    }
  }

  //! Reads the body of a definition (unindented script lines).
  void define(std::string_view body) {
    std::ostringstream out;
    out << "from nvfuser import FusionDefinition, DataType\n\n"
        << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
    out << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
    script_ = frontend::readScript(out.str(), "gpu_test.py");
    executor_.reset();
  }
  ir::Fusion& fusion() { return script_->fusion(); }

  //! A contiguous CPU tensor of random non-zero values: normal for floats,
  //! integers in [1, 10), bools with both values.
  Tensor random(DataType dtype, std::vector<int64_t> sizes) {
    Tensor t = Tensor::empty(dtype, std::move(sizes));
    fill(t);
    return t;
  }
  //! A CPU tensor whose first element sits `offsetElements` past a 64-byte
  //! aligned allocation (a misaligned start, as a slice gives).
  Tensor randomAtOffset(DataType dtype, std::vector<int64_t> sizes, int64_t offsetElements) {
    const auto strides = Tensor::contiguousStrides(sizes);
    int64_t numel = 1;
    for (int64_t s : sizes) numel *= s;
    Tensor storage = Tensor::empty(dtype, {numel + offsetElements});
    Tensor view = storage.asStrided(std::move(sizes), strides, offsetElements);
    fill(view);
    return view;
  }
  //! The transpose of a random contiguous [sizes[1], sizes[0]] tensor: a
  //! [sizes[0], sizes[1]] view with column-major strides.
  Tensor randomTransposed(DataType dtype, std::vector<int64_t> sizes) {
    Tensor t = random(dtype, {sizes[1], sizes[0]});
    return t.permute({1, 0});
  }

  //! Runs on GPU 0 and compares every output with the reference; skips if
  //! a segment's kernel is unavailable. Returns the run's stats.
  runtime::GpuRunStats runAndCheck(const runtime::Arguments& inputs) {
    runtime::GpuRunStats stats;
    if (!executor_) {
      executor_ = std::make_unique<runtime::GpuExecutor>(fusion(), 0, options_, &cache());
      if (provider_ != nullptr) executor_->setHeuristicProvider(provider_);
    }
    const runtime::Arguments referenceInputs = copies(inputs);
    runtime::Arguments gpuInputs = copies(inputs);
    runtime::GpuRunOptions options;
    options.poisonOutputs = true;
    options.synchronizeEachKernel = true;
    runtime::HostRunResult result;
    try {
      result = runtime::runOnGpu(*executor_, gpuInputs, options);
      stats = result.stats;
    } catch (const runtime::KernelUnavailable& unavailable) {
      // Marks the test skipped; callers stop with FL_SKIP_IF_UNAVAILABLE.
      skipped_ = unavailable.what();
      [this]() { GTEST_SKIP() << skipped_; }();  // GTEST_SKIP returns void
      return stats;
    }
    const std::vector<Tensor> reference = runtime::runReference(fusion(), referenceInputs);
    EXPECT_EQ(result.outputs.size(), reference.size());
    for (size_t i = 0; i < reference.size() && i < result.outputs.size(); ++i) {
      const runtime::TensorCheck check =
          runtime::checkTensor(result.outputs[i], reference[i], fusion().outputs()[i].val->name(),
                               runtime::toleranceForOutput(fusion(), i));
      EXPECT_TRUE(check.passed) << check.message;
    }
    lastOutputs_ = result.outputs;
    // Inputs written in place (aliases) must match the reference's too.
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto* a = std::get_if<Tensor>(&gpuInputs[i]);
      const auto* e = std::get_if<Tensor>(&referenceInputs[i]);
      if (a == nullptr || e == nullptr) continue;
      const runtime::TensorCheck check = runtime::checkTensor(*a, *e, "input " + std::to_string(i));
      EXPECT_TRUE(check.passed) << check.message;
    }
    return result.stats;
  }

  //! Call after runAndCheck: skips the test if a kernel was unavailable.
  //! Params from `provider` instead of the heuristic for the executors the
  //! next define() starts (nullptr: the heuristic again).
  void useProvider(const scheduler::HeuristicProvider* provider) {
    provider_ = provider;
    executor_.reset();
  }

  //! Compile options for the executors the next define() starts.
  void useOptions(const compiler::CompileOptions& options) {
    options_ = options;
    executor_.reset();
  }

  bool unavailable() const { return !skipped_.empty(); }
  const std::string& unavailableReason() const { return skipped_; }

  runtime::GpuExecutor& executor() { return *executor_; }
  //! The GPU's outputs of the last runAndCheck (on the host).
  const std::vector<Tensor>& lastOutputs() const { return lastOutputs_; }

  //! One memory-only kernel cache for the whole test program.
  static runtime::KernelCache& cache() {
    static runtime::KernelCache cache{std::filesystem::path()};
    return cache;
  }

 private:
  void fill(Tensor& t) {
    const uint64_t seed = ++seed_;
    switch (t.dtype()) {
      case DataType::Bool: runtime::fillRandint(t, seed, 0, 2); break;
      case DataType::Int:
      case DataType::Int32: {
        runtime::fillRandint(t, seed, 1, 10);
        break;
      }
      default: runtime::fillNormal(t, seed);
    }
  }

  // Copies with the same sizes, strides and storage offset (alignment).
  static runtime::Arguments copies(const runtime::Arguments& inputs) {
    runtime::Arguments out;
    for (const auto& arg : inputs) {
      const auto* t = std::get_if<Tensor>(&arg);
      if (t == nullptr) {
        out.push_back(arg);
        continue;
      }
      int64_t span = 1;
      for (int64_t d = 0; d < t->dim(); ++d) {
        if (t->sizes()[d] == 0) span = 0;
      }
      for (int64_t d = 0; span > 0 && d < t->dim(); ++d) {
        span += (t->sizes()[d] - 1) * t->strides()[d];
      }
      Tensor storage = Tensor::empty(t->dtype(), {t->storageOffset() + span});
      Tensor copy = storage.asStrided(t->sizes(), t->strides(), t->storageOffset());
      runtime::copyInto(*t, copy);
      out.emplace_back(copy);
    }
    return out;
  }

  std::optional<frontend::Script> script_;
  const scheduler::HeuristicProvider* provider_ = nullptr;
  compiler::CompileOptions options_;
  std::unique_ptr<runtime::GpuExecutor> executor_;
  std::string skipped_;
  std::vector<Tensor> lastOutputs_;
  uint64_t seed_ = 1000;
};

//! Skips the rest of a test whose kernel is not available yet, visibly.
#define FL_SKIP_IF_UNAVAILABLE()                            \
  do {                                                      \
    if (unavailable()) GTEST_SKIP() << unavailableReason(); \
  } while (0)

}  // namespace fuserlab::gpu_test
