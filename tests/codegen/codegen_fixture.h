// Helpers of the codegen tests: compile a script (text or file) at the sizes
// of its inputs block (or a --inputs spec) and generate its kernels.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/compiler/fusion_compiler.h"
#include "core/compiler/segment_kernels.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/heuristic_provider.h"

namespace fuserlab::codegen {

struct CompiledScript {
  frontend::Script script;
  runtime::CompiledFusion compiled;
  std::vector<runtime::SegmentKernel> kernels;
};

//! Params pinned for every segment `type` schedules, as the tuner or a
//! heuristics database gives them (the report's params_source is "test");
//! the checks may still refuse them (the report's params_note says why).
template <class Params>
class PinnedParams : public scheduler::HeuristicProvider {
 public:
  PinnedParams(scheduler::SchedulerType type, Params params)
      : type_(type), params_(std::move(params)) {}
  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion&, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo&) const override {
    if (type != type_) return std::nullopt;
    return scheduler::ProvidedParams{scheduler::HeuristicParams(params_), "test"};
  }

 private:
  scheduler::SchedulerType type_;
  Params params_;
};

//! Compiles `source` for `device` at the sizes of `inputs` (a --inputs spec)
//! or, if empty, the script's inputs block; `provider` may replace params;
//! `options` as `--set` gives them.
inline CompiledScript compileScript(const std::string& source, const std::string& inputs = {},
                                    const scheduler::HeuristicProvider* provider = nullptr,
                                    const std::string& device = "h100",
                                    const compiler::CompileOptions& options = {}) {
  CompiledScript result{frontend::readScript(source, "test.py"), {}, {}};
  std::vector<frontend::InputSpec> specs;
  if (!inputs.empty()) {
    specs = frontend::parseInputsOption(inputs);
  } else {
    EXPECT_TRUE(result.script.inputs.has_value()) << "the script has no inputs block";
    if (result.script.inputs) specs = *result.script.inputs;
  }
  const auto spec = scheduler::findBuiltinDevice(device);
  EXPECT_TRUE(spec.has_value()) << device;
  const runtime::Arguments args = frontend::makeInputShapes(specs);
  result.compiled = runtime::compileFusion(result.script.fusion(), options, *spec, args, provider);
  result.kernels = runtime::generateSegmentKernels(result.compiled, *spec, args);
  return result;
}

//! The only kernel of `compiled` (a failure if there is not exactly one).
inline const GeneratedKernel& onlyKernel(const CompiledScript& compiled) {
  EXPECT_EQ(compiled.kernels.size(), 1u);
  const runtime::SegmentKernel& segment = compiled.kernels.at(0);
  EXPECT_TRUE(segment.kernel.has_value()) << segment.error;
  if (!segment.kernel) throw std::runtime_error(segment.error);
  return *segment.kernel;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

//! How many times `part` occurs in `text` (not overlapping).
inline int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos;
       at = text.find(part, at + part.size())) {
    ++n;
  }
  return n;
}

//! A fusion definition script around `body` (lines indented by 4).
inline std::string script(const std::string& body) {
  return "from nvfuser import FusionDefinition, DataType\n"
         "def f(fd : FusionDefinition) -> None :\n" +
         body;
}

//! NVRTC compiles `kernel` for sm_80 and sm_90 (a kernel of thread-block
//! clusters, generated for sm_90+ only, for sm_90).
inline void expectCompilesForSm80AndSm90(const GeneratedKernel& kernel) {
  const bool clusters = kernel.launch.cluster != std::array<int64_t, 3>{1, 1, 1};
  for (int arch : {80, 90}) {
    if (clusters && arch < 90) continue;
    EXPECT_NO_THROW(runtime::compileWithNvrtc(kernel, arch)) << kernel.source;
  }
}

//! Every kernel of `compiled` is generated and compiles for sm_80 and
//! sm_90; returns those whose source holds `marker` ("pointwise (scan)").
inline std::vector<GeneratedKernel> expectKernelsCompile(const CompiledScript& compiled,
                                                         const std::string& marker) {
  std::vector<GeneratedKernel> marked;
  for (const runtime::SegmentKernel& segment : compiled.kernels) {
    if (!segment.kernel.has_value()) {
      ADD_FAILURE() << segment.error;
      continue;
    }
    if (contains(segment.kernel->source, marker)) marked.push_back(*segment.kernel);
    expectCompilesForSm80AndSm90(*segment.kernel);
  }
  return marked;
}

}  // namespace fuserlab::codegen
