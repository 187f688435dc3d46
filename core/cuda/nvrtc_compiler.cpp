#include "core/cuda/nvrtc_compiler.h"

#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include "core/codegen/codegen.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"

namespace fuserlab::runtime {
namespace {

constexpr const char* kHeaderName = "fuserlab_device.cuh";
// Source lines shown before and after each line NVRTC reports.
constexpr int kContextLines = 3;
// Errors whose lines are shown; the log has them all.
constexpr size_t kMaxShownErrors = 4;

void checkNvrtc(nvrtcResult result, const char* what) {
  FL_CHECK(result == NVRTC_SUCCESS, "NVRTC: ", what, " failed: ", nvrtcGetErrorString(result));
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* program) const {
    nvrtcDestroyProgram(program);
    delete program;
  }
};

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Line numbers of `sourceName` that the log reports: "name(123): error ...".
std::vector<int> reportedLines(const std::string& log, const std::string& sourceName) {
  std::vector<int> lines;
  const std::string prefix = sourceName + "(";
  for (size_t at = log.find(prefix); at != std::string::npos; at = log.find(prefix, at + 1)) {
    if (at > 0 && log[at - 1] != '\n') continue;
    const size_t number = at + prefix.size();
    const size_t close = log.find(')', number);
    if (close == std::string::npos) break;
    const std::optional<int64_t> line = ir::tryParseInteger(
        std::string_view(log).substr(number, close - number), 1, std::numeric_limits<int>::max());
    if (line && std::find(lines.begin(), lines.end(), *line) == lines.end()) {
      lines.push_back(static_cast<int>(*line));
    }
  }
  return lines;
}

// The numbered lines around each reported line, '>' marking the reported one.
std::string sourceExcerpt(const std::string& source, const std::vector<int>& lines) {
  const std::vector<std::string> text = splitLines(source);
  std::set<int> reported(lines.begin(), lines.begin() + std::min(lines.size(), kMaxShownErrors));
  std::set<int> shown;
  for (int line : reported) {
    for (int k = line - kContextLines; k <= line + kContextLines; ++k) {
      if (k >= 1 && k <= static_cast<int>(text.size())) shown.insert(k);
    }
  }
  std::ostringstream out;
  int previous = 0;
  for (int k : shown) {
    if (previous != 0 && k != previous + 1) out << "   ...\n";
    out << (reported.count(k) ? '>' : ' ');
    out.width(5);
    out << k << " | " << text[static_cast<size_t>(k - 1)] << "\n";
    previous = k;
  }
  return out.str();
}

}  // namespace

std::string nvrtcVersionString() {
  int major = 0;
  int minor = 0;
  checkNvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtcSupportedArchitectures() {
  int count = 0;
  checkNvrtc(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<size_t>(count));
  if (count > 0) {
    checkNvrtc(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  }
  return archs;
}

NvrtcOutput compileWithNvrtc(const codegen::GeneratedKernel& kernel, int computeCapability) {
  using Clock = std::chrono::steady_clock;
  NvrtcOutput output;
  output.computeCapability = computeCapability;
  checkNvrtc(nvrtcVersion(&output.nvrtcMajor, &output.nvrtcMinor), "nvrtcVersion");

  const std::vector<int> archs = nvrtcSupportedArchitectures();
  if (std::find(archs.begin(), archs.end(), computeCapability) == archs.end()) {
    std::string supported;
    for (int arch : archs) {
      supported += (supported.empty() ? "sm_" : ", sm_") + std::to_string(arch);
    }
    FL_USER_ERROR("NVRTC ", output.nvrtcMajor, ".", output.nvrtcMinor, " cannot compile for sm_",
                  computeCapability, "; it supports ", supported);
  }

  const auto start = Clock::now();
  const std::string sourceName = kernel.name + ".cu";
  const std::string header(codegen::deviceHelperSource());
  const char* headers[] = {header.c_str()};
  const char* headerNames[] = {kHeaderName};
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram{});
  checkNvrtc(nvrtcCreateProgram(program.get(), kernel.source.c_str(), sourceName.c_str(), 1,
                                headers, headerNames),
             "nvrtcCreateProgram");

  output.options = {"--gpu-architecture=sm_" + std::to_string(computeCapability), "-default-device",
                    "--std=c++17"};
  for (const std::string& option : kernel.options) output.options.push_back(option);
  std::vector<const char*> options;
  for (const std::string& option : output.options) options.push_back(option.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(*program, static_cast<int>(options.size()), options.data());

  size_t logSize = 0;
  checkNvrtc(nvrtcGetProgramLogSize(*program, &logSize), "nvrtcGetProgramLogSize");
  std::string log(logSize, '\0');
  if (logSize > 0) {
    checkNvrtc(nvrtcGetProgramLog(*program, log.data()), "nvrtcGetProgramLog");
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  output.log = log;

  if (compiled != NVRTC_SUCCESS) {
    std::string optionText;
    for (const std::string& option : output.options) optionText += " " + option;
    FL_USER_ERROR("NVRTC could not compile kernel ", kernel.name, " for sm_", computeCapability,
                  " (", nvrtcGetErrorString(compiled), "; options:", optionText, "):\n", log,
                  "\n\nsource of ", sourceName, ":\n",
                  sourceExcerpt(kernel.source, reportedLines(log, sourceName)));
  }

  size_t cubinSize = 0;
  checkNvrtc(nvrtcGetCUBINSize(*program, &cubinSize), "nvrtcGetCUBINSize");
  output.cubin.resize(cubinSize);
  checkNvrtc(nvrtcGetCUBIN(*program, output.cubin.data()), "nvrtcGetCUBIN");
  output.compileMilliseconds =
      std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return output;
}

}  // namespace fuserlab::runtime
