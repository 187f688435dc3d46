#include "tests/difftest/case_runner.h"

#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "core/compiler/compile_options.h"
#include "core/compiler/fusion_compiler.h"
#include "core/compiler/segment_kernels.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/passes/pipeline.h"
#include "core/passes/refine_reshaped_reductions.h"
#include "core/reference/reference_run.h"
#include "core/runtime/gpu_executor.h"
#include "core/scheduler/device_spec.h"
#include "core/tensor/binding.h"
#include "core/tensor/result_check.h"

namespace fuserlab::difftest {
namespace {

struct StatusName {
  Status status;
  const char* name;
};
constexpr StatusName kStatusNames[] = {
    {Status::Pass, "pass"},
    {Status::Unavailable, "unavailable"},
    {Status::Refused, "refused"},
    {Status::Invalid, "invalid"},
    {Status::WrongResult, "wrong_result"},
    {Status::InternalError, "internal_error"},
    {Status::BuildFailure, "build_failure"},
    {Status::Crash, "crash"},
};

std::string firstLine(const std::string& text) {
  const size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end) + " ...";
}

runtime::Arguments copies(const runtime::Arguments& inputs) {
  runtime::Arguments out;
  for (const runtime::Argument& arg : inputs) {
    const auto* t = std::get_if<runtime::Tensor>(&arg);
    if (t == nullptr) {
      out.push_back(arg);
      continue;
    }
    runtime::Tensor copy = runtime::Tensor::emptyStrided(t->dtype(), t->sizes(), t->strides());
    runtime::copyInto(*t, copy);
    out.emplace_back(copy);
  }
  return out;
}

CaseResult compileOnly(const ir::Fusion& fusion, const compiler::CompileOptions& options,
                       const runtime::Arguments& inputs) {
  const scheduler::DeviceSpec& device = scheduler::defaultDevice();
  const runtime::CompiledFusion compiled =
      runtime::compileFusion(fusion, options, device, inputs, nullptr, true);
  const std::vector<runtime::SegmentKernel> kernels =
      runtime::generateSegmentKernels(compiled, device, inputs);
  CaseResult result;
  for (const runtime::SegmentKernel& segment : kernels) {
    if (!segment.kernel) {
      result.status = Status::Unavailable;
      result.detail = "segment " + std::to_string(segment.segment) + ": " + segment.error;
      continue;
    }
    try {
      (void)runtime::compileWithNvrtc(*segment.kernel, device.computeCapability());
      ++result.kernels;
    } catch (const UserError& error) {
      return {Status::BuildFailure, segment.kernel->name + ": " + firstLine(error.what()),
              result.kernels};
    }
  }
  return result;
}

// The passes must not change what the fusion computes: the reference of
// the rewritten fusion against the original's, on the same small inputs.
// A difference is a wrong result the GPU run would show too, found here
// without a GPU.
CaseResult checkPasses(const ir::Fusion& fusion, const compiler::CompileOptions& options,
                       const runtime::Arguments& inputs) {
  const std::vector<runtime::Tensor> before = runtime::runReference(fusion, copies(inputs));
  const std::unique_ptr<ir::Fusion> rewritten = passes::runPasses(fusion, options, nullptr, false);
  if (options.refineReshapedReductions) {
    // The pass that needs the sizes, as compileFusion runs it.
    ir::ExpressionEvaluator evaluator;
    runtime::bindInputs(*rewritten, inputs, evaluator);
    passes::PassRecord record;
    passes::refineReshapedReductions(*rewritten, evaluator, record);
  }
  const std::vector<runtime::Tensor> after = runtime::runReference(*rewritten, copies(inputs));
  if (before.size() != after.size()) {
    return {Status::WrongResult,
            "the passes changed the number of outputs from " + std::to_string(before.size()) +
                " to " + std::to_string(after.size()),
            0};
  }
  for (size_t i = 0; i < before.size(); ++i) {
    const runtime::TensorCheck check = runtime::checkTensor(
        after[i], before[i], "output " + std::to_string(i), runtime::toleranceForOutput(fusion, i));
    if (!check.passed) return {Status::WrongResult, "after the passes: " + check.message, 0};
  }
  return {};
}

CaseResult onGpu(const ir::Fusion& fusion, const compiler::CompileOptions& options,
                 const runtime::Arguments& inputs, int device) {
  // The reference updates the inputs that outputs alias, in place (the
  // copies share nothing with `inputs`).
  const runtime::Arguments referenceInputs = copies(inputs);
  const std::vector<runtime::Tensor> reference = runtime::runReference(fusion, referenceInputs);
  runtime::Arguments gpuInputs = copies(inputs);
  runtime::GpuExecutor executor(fusion, device, options);
  runtime::GpuRunOptions run;
  run.poisonOutputs = true;
  run.synchronizeEachKernel = true;
  const runtime::HostRunResult result = runtime::runOnGpu(executor, gpuInputs, run);
  CaseResult out;
  out.kernels = result.stats.kernelLaunches;
  if (result.outputs.size() != reference.size()) {
    return {Status::WrongResult,
            "the GPU run gave " + std::to_string(result.outputs.size()) +
                " outputs, the reference " + std::to_string(reference.size()),
            out.kernels};
  }
  for (size_t i = 0; i < reference.size(); ++i) {
    const runtime::TensorCheck check =
        runtime::checkTensor(result.outputs[i], reference[i], "output " + std::to_string(i),
                             runtime::toleranceForOutput(fusion, i));
    if (!check.passed) return {Status::WrongResult, check.message, out.kernels};
  }
  for (size_t i = 0; i < gpuInputs.size(); ++i) {
    const auto* actual = std::get_if<runtime::Tensor>(&gpuInputs[i]);
    const auto* expected = std::get_if<runtime::Tensor>(&referenceInputs[i]);
    if (actual == nullptr || expected == nullptr) continue;
    const runtime::TensorCheck check =
        runtime::checkTensor(*actual, *expected, "input " + std::to_string(i) + " after the run",
                             runtime::toleranceForInputAfterRun(fusion, i));
    if (!check.passed) return {Status::WrongResult, check.message, out.kernels};
  }
  return out;
}

}  // namespace

const char* toString(Status status) {
  for (const StatusName& entry : kStatusNames) {
    if (entry.status == status) return entry.name;
  }
  return "?";
}

Status statusFromString(const std::string& text) {
  for (const StatusName& entry : kStatusNames) {
    if (text == entry.name) return entry.status;
  }
  return Status::Crash;
}

bool isFailure(Status status) {
  return status == Status::WrongResult || status == Status::InternalError ||
         status == Status::BuildFailure || status == Status::Crash;
}

CaseResult runCase(const std::string& source, const std::string& name,
                   const std::vector<std::string>& options, Mode mode, int device) {
  frontend::Script script;
  runtime::Arguments inputs;
  compiler::CompileOptions compileOptions;
  try {
    script = frontend::readScript(source, name);
    FL_CHECK(script.inputs.has_value(), "the script has no inputs block");
    inputs = mode == Mode::Gpu ? frontend::makeInputs(*script.inputs, 7)
                               : frontend::makeInputShapes(*script.inputs);
    for (const std::string& option : options) compileOptions.setFromAssignment(option);
    if (mode == Mode::Compile) {
      // The reference must take the fusion too (small inputs of the same
      // shapes are what the GPU mode would run), and give the same values
      // after the passes.
      CaseResult passes =
          checkPasses(script.fusion(), compileOptions, frontend::makeInputs(*script.inputs, 7));
      if (passes.status != Status::Pass) return passes;
    }
  } catch (const UserError& error) {
    return {Status::Invalid, firstLine(error.what()), 0};
  } catch (const std::exception& error) {
    return {Status::InternalError,
            std::string("reading or the reference: ") + firstLine(error.what()), 0};
  }
  try {
    if (mode == Mode::Compile) return compileOnly(script.fusion(), compileOptions, inputs);
    return onGpu(script.fusion(), compileOptions, inputs, device);
  } catch (const runtime::KernelUnavailable& error) {
    return {Status::Unavailable, firstLine(error.what()), 0};
  } catch (const UserError& error) {
    return {Status::Refused, firstLine(error.what()), 0};
  } catch (const std::exception& error) {
    return {Status::InternalError, firstLine(error.what()), 0};
  }
}

std::vector<std::string> optionsInHeader(const std::string& source) {
  static const std::string kHeader = "# Compile options:";
  std::vector<std::string> options;
  std::istringstream lines(source);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(kHeader, 0) != 0) continue;
    std::istringstream words(line.substr(kHeader.size()));
    std::string word;
    while (words >> word) {
      if (word != "--set") options.push_back(word);
    }
    break;
  }
  return options;
}

}  // namespace fuserlab::difftest
