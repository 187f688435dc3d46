#include "app/gui/kernel_usage_job.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/cuda/nvrtc_compiler.h"

namespace fuserlab::gui {
namespace {

// ptxas's report by architecture, options and source with the kernel's name
// taken out: a recompile of the same script, and kernels alike but for
// their names (a loop of 3,000 alike reductions), run NVRTC once.
class UsageCache {
 public:
  static constexpr size_t kMaxEntries = 4096;

  static std::string key(const SegmentCode& code, int arch) {
    std::string source = code.source;
    for (size_t at = source.find(code.kernelName);
         !code.kernelName.empty() && at != std::string::npos;
         at = source.find(code.kernelName, at + 1)) {
      source.replace(at, code.kernelName.size(), "\x01");
    }
    std::string text = std::to_string(arch);
    for (const std::string& option : code.options) text += "\n" + option;
    return text + "\n" + source;
  }
  std::optional<runtime::PtxasUsage> find(const std::string& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(key);
    return it == entries_.end() ? std::nullopt : std::optional(it->second);
  }
  void add(const std::string& key, const runtime::PtxasUsage& usage) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= kMaxEntries) entries_.clear();
    entries_[key] = usage;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, runtime::PtxasUsage> entries_;
};

std::atomic<int64_t> nvrtcRuns{0};

UsageCache& usageCache() {
  static UsageCache* cache = new UsageCache;  // never destroyed: jobs may run at exit
  return *cache;
}

}  // namespace

int64_t kernelUsageNvrtcRuns() { return nvrtcRuns.load(); }

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
      const std::string key = UsageCache::key(code, arch);
      if (auto cached = usageCache().find(key)) {
        usage.bySegment[code.segment] = *cached;
        continue;
      }
      codegen::GeneratedKernel kernel;
      kernel.name = code.kernelName;
      kernel.source = code.source;
      kernel.options = code.options;
      kernel.options.emplace_back(runtime::kPtxasVerboseOption);
      try {
        ++nvrtcRuns;
        const runtime::NvrtcOutput output = runtime::compileWithNvrtc(kernel, arch);
        if (auto found = runtime::parsePtxasUsage(output.log, kernel.name)) {
          usage.bySegment[code.segment] = *found;
          usageCache().add(key, *found);
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
