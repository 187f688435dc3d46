// fuserlab-cli compile FILE [--device NAME] [--inputs SPEC] [--fusion NAME]
//                           [--set K=V]... [--disable-pass P]... [--out DIR]
//                           [--db FILE]
//
// Compiles the fusion at the input sizes, generates the CUDA kernel of every
// segment that launches one and compiles it with NVRTC for the device's
// architecture. Needs no GPU. Prints each kernel's launch configuration,
// NVRTC's compile time, the CUBIN's size and what ptxas reports for it
// (registers per thread, spill stores and loads, stack, static shared
// memory; NVRTC runs ptxas verbose); with --out writes <name>.cu, <name>.log
// (NVRTC's log, ptxas's report included), <name>.cubin and the helper header
// fuserlab_device.cuh. Exit 2 if some kernel cannot be generated or compiled.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "core/codegen/codegen.h"
#include "core/compiler/fusion_compiler.h"
#include "core/compiler/segment_kernels.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/cuda/ptxas_usage.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "db/database_search_path.h"

namespace fuserlab::cli {
namespace {

std::string dims(const std::array<int64_t, 3>& d) {
  return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         "]";
}

void writeFile(const std::filesystem::path& path, std::string_view bytes) {
  writeOutputFile(path.string(), bytes);
}

// What NVRTC made of one kernel, for a later kernel whose source is the same
// but for its name: a chain of 3,000 sum-and-broadcast pairs segments into
// 3,000 reduction kernels, nearly all alike, and compiled each for 40 ms
// (two minutes); alike ones are compiled once now. With --out every kernel
// is compiled, since each CUBIN holds its own kernel's name.
struct CompiledSource {
  std::string kernelName;
  size_t cubinBytes = 0;
  bool withWarnings = false;
  std::string ptxasUsage;  //!< empty when ptxas reported none
};

// The kernel's source and options with its name taken out.
std::string sourceButForTheName(const codegen::GeneratedKernel& kernel) {
  std::string key;
  for (const std::string& option : kernel.options) key += option + "\n";
  const std::string& source = kernel.source;
  size_t at = 0;
  for (size_t next = source.find(kernel.name); next != std::string::npos;
       next = source.find(kernel.name, at)) {
    key.append(source, at, next - at).append("\x01");
    at = next + kernel.name.size();
  }
  return key.append(source, at, std::string::npos);
}

}  // namespace

int compileCommand(const std::vector<std::string>& args) {
  std::set<std::string> options = kScriptOptions;
  options.insert("out");
  options.insert(kCompileOptions.begin(), kCompileOptions.end());
  options.insert(kDatabaseOptions.begin(), kDatabaseOptions.end());
  CommandLine cl(args, options, kDatabaseFlags);
  LoadedScript loaded = loadScript(cl);
  FL_CHECK(loaded.inputs.has_value(), "compile needs input sizes: ", loaded.script.fileName,
           " has no inputs block; pass --inputs (e.g. --inputs 128x1024:bf16)");
  const compiler::CompileOptions compileOptions = compileOptionsFrom(cl);
  const scheduler::DeviceSpec device = deviceFrom(cl);
  const runtime::Arguments inputs = frontend::makeInputShapes(*loaded.inputs);
  const auto database = heuristicsDatabaseFrom(cl);
  const runtime::CompiledFusion compiled =
      runtime::compileFusion(*loaded.fusion, compileOptions, device, inputs, database.get());
  const std::vector<runtime::SegmentKernel> kernels =
      runtime::generateSegmentKernels(compiled, device, inputs);

  std::optional<std::filesystem::path> out;
  if (auto dir = cl.value("out")) {
    out = *dir;
    std::error_code error;
    std::filesystem::create_directories(*out, error);
    FL_CHECK(!error, "cannot create the directory '", *dir, "': ", error.message());
    writeFile(*out / "fuserlab_device.cuh", std::string(codegen::deviceHelperSource()));
  }

  const int arch = device.computeCapability();
  std::cout << "fusion " << loaded.fusionName << " from " << loaded.script.fileName << " for "
            << device.name << " (" << device.arch() << "), NVRTC " << runtime::nvrtcVersionString()
            << ": " << compiled.report.segments.size() << " segments, " << kernels.size()
            << " kernels\n";
  std::vector<std::string> failures;
  std::map<std::string, CompiledSource> compiledSources;
  for (const runtime::SegmentKernel& segment : kernels) {
    const std::string scheduler(scheduler::toString(segment.scheduler));
    if (!segment.kernel) {
      std::cout << "segment " << segment.segment << " (" << scheduler
                << "): no kernel: " << segment.error << "\n";
      failures.push_back("segment " + std::to_string(segment.segment) + " (" + scheduler +
                         "): " + segment.error);
      continue;
    }
    const codegen::GeneratedKernel& kernel = *segment.kernel;
    std::cout << "kernel " << kernel.name << " (segment " << segment.segment << ", " << scheduler
              << "): grid " << dims(kernel.launch.grid) << " block " << dims(kernel.launch.block);
    if (kernel.launch.cluster != std::array<int64_t, 3>{1, 1, 1}) {
      std::cout << " cluster " << dims(kernel.launch.cluster);
    }
    if (kernel.launch.dynamicSharedMemoryBytes > 0) {
      std::cout << " shared " << kernel.launch.dynamicSharedMemoryBytes << " bytes";
    }
    if (kernel.workspaceBytes > 0) std::cout << " workspace " << kernel.workspaceBytes << " bytes";
    std::cout << ", " << (kernel.int64Indexing ? "int64" : "int32") << " indexing\n";
    if (out) writeFile(*out / (kernel.name + ".cu"), kernel.source);
    const std::string sourceKey = out ? std::string() : sourceButForTheName(kernel);
    if (auto same = compiledSources.find(sourceKey); !out && same != compiledSources.end()) {
      const CompiledSource& earlier = same->second;
      std::cout << "  NVRTC: not run again, the source is " << earlier.kernelName
                << "'s but for the name; cubin " << earlier.cubinBytes << " bytes";
      for (const std::string& option : kernel.options) std::cout << " " << option;
      std::cout << (earlier.withWarnings ? " (with warnings)" : "") << "\n";
      if (!earlier.ptxasUsage.empty()) std::cout << "  ptxas: " << earlier.ptxasUsage << "\n";
      continue;
    }
    try {
      codegen::GeneratedKernel verbose = kernel;
      verbose.options.emplace_back(runtime::kPtxasVerboseOption);
      const runtime::NvrtcOutput binary = runtime::compileWithNvrtc(verbose, arch);
      std::ostringstream line;
      line << std::fixed << std::setprecision(1) << binary.compileMilliseconds;
      std::cout << "  NVRTC: " << line.str() << " ms, cubin " << binary.cubin.size() << " bytes";
      for (const std::string& option : kernel.options) std::cout << " " << option;
      const bool withWarnings = !runtime::withoutPtxasInfo(binary.log).empty();
      std::cout << (withWarnings ? " (with warnings)" : "") << "\n";
      const auto usage = runtime::parsePtxasUsage(binary.log, kernel.name);
      if (usage) std::cout << "  ptxas: " << usage->toString() << "\n";
      if (!out) {
        compiledSources.emplace(sourceKey,
                                CompiledSource{kernel.name, binary.cubin.size(), withWarnings,
                                               usage ? usage->toString() : ""});
      }
      if (out) {
        writeFile(*out / (kernel.name + ".log"), binary.log);
        writeFile(*out / (kernel.name + ".cubin"),
                  std::string(binary.cubin.begin(), binary.cubin.end()));
      }
    } catch (const UserError& error) {
      std::cout << "  NVRTC failed\n";
      if (out) writeFile(*out / (kernel.name + ".log"), error.message());
      failures.push_back(error.message());
    }
  }
  if (out) std::cout << "wrote the kernels to " << out->string() << "\n";
  if (!failures.empty()) {
    std::string message = std::to_string(failures.size()) + " of " +
                          std::to_string(kernels.size()) + " kernels could not be built:";
    for (const std::string& failure : failures) message += "\n  " + failure;
    FL_USER_ERROR(message);
  }
  return 0;
}

}  // namespace fuserlab::cli
