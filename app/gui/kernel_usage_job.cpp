#include "app/gui/kernel_usage_job.h"

#include <algorithm>

#include "core/cuda/nvrtc_compiler.h"

namespace fuserlab::gui {

int reportComputeCapability(const report::CompileReport& report) {
  const report::Json* cc = report.device.get("compute_capability");
  if (cc == nullptr || !cc->isString()) return 0;
  const std::string& text = cc->asString();
  const size_t dot = text.find('.');
  if (dot == std::string::npos) return 0;
  try {
    return std::stoi(text.substr(0, dot)) * 10 + std::stoi(text.substr(dot + 1));
  } catch (const std::exception&) {
    return 0;
  }
}

KernelUsage kernelUsageJob(const std::vector<SegmentCode>& kernels, int computeCapability) {
  KernelUsage usage;
  try {
    std::vector<int> supported = runtime::nvrtcSupportedArchitectures();
    std::sort(supported.begin(), supported.end());
    int arch = 0;
    for (int candidate : supported) {
      if (candidate <= computeCapability) arch = candidate;
    }
    if (arch == 0) {
      usage.error = "NVRTC supports no architecture up to sm_" + std::to_string(computeCapability);
      return usage;
    }
    for (const SegmentCode& code : kernels) {
      if (code.source.empty()) continue;
      codegen::GeneratedKernel kernel;
      kernel.name = code.kernelName;
      kernel.source = code.source;
      kernel.options = code.options;
      kernel.options.emplace_back(runtime::kPtxasVerboseOption);
      try {
        const runtime::NvrtcOutput output = runtime::compileWithNvrtc(kernel, arch);
        if (auto found = runtime::parsePtxasUsage(output.log, kernel.name)) {
          usage.bySegment[code.segment] = *found;
        }
      } catch (const std::exception&) {
        // A kernel NVRTC refuses has no figures; the CUDA tab shows why.
      }
    }
  } catch (const std::exception& error) {
    usage.error = error.what();
  }
  return usage;
}

}  // namespace fuserlab::gui
