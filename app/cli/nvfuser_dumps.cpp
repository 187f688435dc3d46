#include "app/cli/nvfuser_dumps.h"

#include <algorithm>
#include <cstdlib>

#include "app/cli/output.h"
#include "core/codegen/codegen.h"
#include "core/compiler/segment_kernels.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/printer.h"
#include "core/repro/segment_repro.h"
#include "viz/dot_writer.h"
#include "viz/fusion_graph.h"
#include "viz/segmented_graph.h"

namespace fuserlab::cli {
namespace {

using C = DumpCounterpart;

// Sorted by name. nvFuser's names from csrc/options.cpp (DebugDumpOption).
const std::vector<NvfuserDump> kDumps = {
    {"bank_conflict", C::None, "FuserLab does not analyse shared-memory bank conflicts"},
    {"buffer_reuse_verbose", C::None, "FuserLab's code generation does not alias buffers"},
    {"ca_map", C::None, "FuserLab has no compute-at map: schedulers emit loops directly"},
    {"communication", C::Inspect, "each communication segment's collective and shardings"},
    {"cubin", C::Elsewhere, "fuserlab-cli compile FILE --out DIR writes each kernel's cubin"},
    {"cuda_full", C::Inspect, "each kernel's CUDA source with the device helper header"},
    {"cuda_kernel", C::Inspect, "each kernel's generated CUDA source"},
    {"cuda_to_file", C::Inspect, "each kernel's CUDA source written to __tmp_<kernel>.cu"},
    {"draw_segmented_fusion", C::Inspect, "the segmented graph as Graphviz DOT"},
    {"dynamic_shared_memory", C::Inspect, "each kernel's dynamic shared memory bytes"},
    {"expr_simplify", C::None, "FuserLab has no index expression simplifier"},
    {"expr_sort", C::None, "FuserLab does not sort exprs during lowering"},
    {"expr_sort_verbose", C::None, "FuserLab does not sort exprs during lowering"},
    {"ftrace", C::None, "FuserLab has no function trace"},
    {"fusion_args", C::Inspect, "the input signature (inspect always prints it)"},
    {"fusion_ir", C::Inspect, "the fusion IR as read"},
    {"fusion_ir_concretized", C::Inspect,
     "the fusion IR as read (FuserLab binds sizes at compile time: nothing to concretize)"},
    {"fusion_ir_graph", C::Inspect, "the fusion graph as Graphviz DOT"},
    {"fusion_ir_math", C::Inspect, "the fusion IR as read (it holds only the math)"},
    {"fusion_ir_original", C::Inspect, "the fusion IR as read"},
    {"fusion_ir_presched", C::Inspect, "each segment's fusion before scheduling"},
    {"fusion_ir_preseg", C::Inspect, "the fusion IR after the pre-segmentation passes"},
    {"global_zeroed_memory", C::None, "FuserLab zeroes workspaces without a shared zeroed pool"},
    {"host_ir", C::None, "FuserLab runs segments from a plan, not from host IR"},
    {"host_ir_jit", C::None, "FuserLab runs segments from a plan, not from host IR"},
    {"host_ir_lowering_logging", C::None, "FuserLab runs segments from a plan, not from host IR"},
    {"index_type", C::Inspect, "each kernel's index type (int32 or int64)"},
    {"indexing_verbose", C::None, "FuserLab has no separate indexing pass"},
    {"kernel_args", C::Inspect, "each kernel's parameters"},
    {"kernel_ir", C::None, "FuserLab emits CUDA from the scheduled segment, with no kernel IR"},
    {"launch_param", C::Inspect, "each kernel's grid, block, cluster and shared memory"},
    {"loop_rotation", C::None, "FuserLab does not rotate loops"},
    {"lower_verbose", C::None, "FuserLab has no lowering passes"},
    {"occupancy", C::Elsewhere,
     "fuserlab-cli compile FILE --out DIR: the NVRTC log gives registers per thread"},
    {"parallel_dimensions", C::Inspect, "each kernel's grid and block (as launch_param)"},
    {"perf_debug_verbose", C::None, "FuserLab has no such log"},
    {"pre_segmenter_logging", C::Inspect, "each pre-segmentation pass and its rewrites"},
    {"predicate_elimination", C::None, "FuserLab's kernels predicate tails without that pass"},
    {"ptx", C::None, "FuserLab compiles with NVRTC straight to cubin; no PTX is kept"},
    {"ptxas_verbose", C::Elsewhere,
     "fuserlab-cli compile FILE --out DIR prints and writes each kernel's NVRTC log "
     "(registers, spills)"},
    {"python_definition", C::Inspect, "the fusion written back as a FusionDefinition script"},
    {"python_definition_segments", C::Inspect,
     "each segment as a standalone script with its own inputs block"},
    {"python_frontend_debug", C::None, "FuserLab reads scripts without running Python"},
    {"sass", C::Elsewhere,
     "cuobjdump -sass on the cubins of fuserlab-cli compile --out (docs/gpu.md)"},
    {"sass_to_file", C::Elsewhere,
     "cuobjdump -sass on the cubins of fuserlab-cli compile --out (docs/gpu.md)"},
    {"scheduler_params", C::Inspect, "each segment's properties and heuristic params"},
    {"scheduler_verbose", C::Inspect, "why every other scheduler refused each segment"},
    {"segmented_fusion", C::Inspect, "the segments and the edges between them"},
    {"segmenter_logging", C::Inspect, "every merge the segmenter tried, and why"},
    {"sync_map", C::None, "FuserLab has no sync map: kernels synchronize per scheduler"},
    {"transform_propagator", C::None, "FuserLab has no transform propagation"},
};

std::string acceptedNames() {
  std::string list;
  for (const auto& dump : kDumps) list += (list.empty() ? "" : ", ") + std::string(dump.name);
  return list;
}

void addNames(std::string_view value, const std::string& origin,
              std::vector<const NvfuserDump*>& out) {
  size_t begin = 0;
  while (begin <= value.size()) {
    size_t end = begin;
    int depth = 0;  // nvFuser's `name(arg, arg)`: commas inside belong to the name
    while (end < value.size() && (value[end] != ',' || depth > 0)) {
      depth += value[end] == '(' ? 1 : value[end] == ')' ? -1 : 0;
      ++end;
    }
    std::string_view item = value.substr(begin, end - begin);
    item = item.substr(0, item.find('('));
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    begin = end + 1;
    if (item.empty() && origin == "NVFUSER_DUMP") continue;  // "a,,b" or a trailing comma
    const auto found = std::find_if(kDumps.begin(), kDumps.end(),
                                    [&](const NvfuserDump& d) { return d.name == item; });
    FL_CHECK(found != kDumps.end(), origin, ": '", item,
             "' is not one of nvFuser's dump names; accepted: ", acceptedNames());
    if (std::find(out.begin(), out.end(), &*found) == out.end()) out.push_back(&*found);
  }
}

void banner(std::ostream& text, const std::string& title) {
  text << "\n===== " << title << " =====\n";
}

std::string shape(const std::array<int64_t, 3>& dims) {
  return "(" + std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + ", " +
         std::to_string(dims[2]) + ")";
}

void printKernelDump(std::string_view name, const std::vector<runtime::SegmentKernel>& kernels,
                     std::ostream& text) {
  for (const auto& kernel : kernels) {
    if (!kernel.kernel) {
      text << kernel.name << ": no kernel: " << kernel.error << "\n";
      continue;
    }
    const codegen::GeneratedKernel& k = *kernel.kernel;
    if (name == "cuda_kernel" || name == "cuda_full") {
      banner(text, "CUDA of " + kernel.name + " (segment " + std::to_string(kernel.segment) + ")");
      if (name == "cuda_full") text << codegen::deviceHelperSource() << "\n";
      text << k.source << "\n";
    } else if (name == "cuda_to_file") {
      const std::string path = "__tmp_" + kernel.name + ".cu";
      writeOutputFile(path, std::string(codegen::deviceHelperSource()) + "\n" + k.source);
      text << kernel.name << ": wrote " << path << "\n";
    } else if (name == "launch_param" || name == "parallel_dimensions") {
      text << kernel.name << ": grid " << shape(k.launch.grid) << " block " << shape(k.launch.block)
           << " cluster " << shape(k.launch.cluster) << " dynamic shared memory "
           << k.launch.dynamicSharedMemoryBytes << " bytes\n";
    } else if (name == "dynamic_shared_memory") {
      text << kernel.name << ": " << k.launch.dynamicSharedMemoryBytes << " bytes\n";
    } else if (name == "index_type") {
      text << kernel.name << ": " << (k.int64Indexing ? "int64" : "int32") << "\n";
    } else if (name == "kernel_args") {
      text << kernel.name << ":";
      for (const auto& parameter : k.parameters) {
        text << " "
             << (parameter.kind == codegen::KernelParameter::Kind::Tensor ? "tensor" : "scalar")
             << (parameter.segmentInput >= 0 ? " in" + std::to_string(parameter.segmentInput)
                                             : " out" + std::to_string(parameter.segmentOutput))
             << ";";
      }
      text << "\n";
    }
  }
}

}  // namespace

const std::vector<NvfuserDump>& nvfuserDumps() { return kDumps; }

std::vector<const NvfuserDump*> requestedDumps(const CommandLine& cl) {
  std::vector<const NvfuserDump*> dumps;
  for (const std::string& value : cl.values("dump")) addNames(value, "--dump", dumps);
  if (const char* env = std::getenv("NVFUSER_DUMP"); env != nullptr && *env) {
    addNames(env, "NVFUSER_DUMP", dumps);
  }
  return dumps;
}

void printDumps(const std::vector<const NvfuserDump*>& dumps, const LoadedScript& loaded,
                const runtime::CompiledFusion* compiled, const scheduler::DeviceSpec& device,
                std::ostream& text) {
  std::optional<std::vector<runtime::SegmentKernel>> kernels;
  for (const NvfuserDump* dump : dumps) {
    const std::string name(dump->name);
    if (dump->counterpart == C::None) {
      text << "\ndump " << name << ": no FuserLab counterpart: " << dump->what << "\n";
      continue;
    }
    if (dump->counterpart == C::Elsewhere) {
      text << "\ndump " << name << ": not printed by inspect: " << dump->what << "\n";
      continue;
    }
    const bool textOnly = name == "fusion_ir" || name == "fusion_ir_original" ||
                          name == "fusion_ir_math" || name == "fusion_ir_concretized" ||
                          name == "python_definition" || name == "fusion_args";
    if (textOnly) {
      if (name == "fusion_args") continue;  // the signature is printed already
      if (name == "python_definition") {
        text << "\n" << frontend::writeScript(*loaded.fusion, loaded.fusionName);
      } else {
        text << "\n" << ir::printFusionIr(*loaded.fusion);
      }
      continue;
    }
    if (compiled == nullptr) {
      text << "\ndump " << name << ": needs input sizes (an inputs block or --inputs)\n";
      continue;
    }
    const report::CompileReport& report = compiled->report;
    if (name == "fusion_ir_preseg") {
      text << "\n" << report.fusionIrPreseg;
    } else if (name == "segmented_fusion") {
      text << "\n" << report.segmentedFusion;
    } else if (name == "scheduler_params") {
      text << "\n" << report.schedulerParamsText();
    } else if (name == "segmenter_logging") {
      text << "\n" << report.segmenterLoggingText();
    } else if (name == "pre_segmenter_logging") {
      banner(text, "pre-segmentation passes");
      for (const auto& pass : report.passes) {
        text << pass.name << (pass.enabled ? "" : " (disabled)") << ": " << pass.rewrites.size()
             << " rewrites\n";
        for (const auto& rewrite : pass.rewrites) text << "  " << rewrite << "\n";
      }
    } else if (name == "fusion_ir_presched") {
      for (const auto& segment : report.segments) {
        banner(text, "segment " + std::to_string(segment.id) + " (" + segment.scheduler + ")");
        text << segment.fusionIr;
      }
    } else if (name == "scheduler_verbose") {
      for (const auto& segment : report.segments) {
        text << "segment " << segment.id << ": " << segment.scheduler << "\n";
        for (const auto& r : segment.rejected)
          text << "  not " << r.scheduler << ": " << r.reason << "\n";
      }
    } else if (name == "communication") {
      for (const auto& segment : report.segments) {
        if (const report::Json* collective = segment.properties.get("collective")) {
          text << "segment " << segment.id << ": " << collective->dump(-1) << "\n";
        }
      }
    } else if (name == "python_definition_segments") {
      for (size_t segment = 0; segment < report.segments.size(); ++segment) {
        banner(text, "segment " + std::to_string(segment));
        text << frontend::writeSegmentRepro(*compiled, segment, *loaded.inputs,
                                            loaded.script.fileName);
      }
    } else if (name == "fusion_ir_graph") {
      text << "\n" << viz::toDot(viz::buildFusionGraph(report));
    } else if (name == "draw_segmented_fusion") {
      text << "\n" << viz::toDot(viz::buildSegmentedGraph(report));
    } else {
      if (!kernels) {
        kernels = runtime::generateSegmentKernels(*compiled, device,
                                                  frontend::makeInputShapes(*loaded.inputs));
      }
      banner(text, name);
      printKernelDump(name, *kernels, text);
    }
  }
}

}  // namespace fuserlab::cli
