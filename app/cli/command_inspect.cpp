// fuserlab-cli inspect FILE [--inputs SPEC] [--fusion NAME]
//                           [--dump LIST] [--json PATH|-] [--db FILE]
#include <fstream>
#include <iostream>
#include <utility>

#include <algorithm>
#include "app/cli/commands.h"
#include "app/cli/nvfuser_dumps.h"
#include "app/cli/output.h"
#include "app/cli/segment_repros.h"
#include "core/compiler/fusion_compiler.h"
#include "core/cuda/cuda_device.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "core/ir/printer.h"
#include "core/report/json.h"
#include "core/runtime/run_keys.h"
#include "db/database_search_path.h"

namespace fuserlab::cli {
namespace {

using report::Json;

std::string listString(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

std::string contiguityString(const std::optional<bool>& flag) {
  return !flag ? "None" : (*flag ? "True" : "False");
}

// The signature of one input: what a tensor bound to it must look like.
Json inputSignature(const ir::Val* input, size_t position, const frontend::InputSpec* spec) {
  Json entry = Json::object();
  entry.set("position", int64_t(position));
  entry.set("name", input->name());
  if (!input->scriptName().empty()) entry.set("script_name", input->scriptName());
  entry.set("dtype", std::string(ir::toString(input->dtype())));
  if (const auto* tv = input->as<ir::TensorView>()) {
    entry.set("kind", tv->isCpuScalar() ? "cpu_scalar_tensor" : "tensor");
    Json extents = Json::array();
    for (const ir::IterDomain* id : tv->logicalNoReductions()) {
      extents.push(id->isBroadcast() ? std::string("1 (broadcast)") : id->extent()->name());
    }
    entry.set("logical", std::move(extents));
    Json contiguity = Json::array();
    for (const auto& flag : tv->contiguity()) {
      contiguity.push(flag ? Json(*flag) : Json());
    }
    entry.set("contiguity", std::move(contiguity));
    if (auto order = tv->strideOrder(); !order.empty()) {
      entry.set("stride_order", Json::arrayOf(order));
    } else if (tv->domain().hasAllocation()) {
      Json allocation = Json::array();
      for (const ir::IterDomain* id : tv->domain().allocation) {
        allocation.push(id->toString());
      }
      entry.set("allocation", std::move(allocation));
    }
  } else {
    entry.set("kind", "scalar");
  }
  if (spec != nullptr && !spec->isScalar) {
    entry.set("sizes", Json::arrayOf(spec->stridedSizes.value_or(spec->sizes)));
    if (spec->stridedStrides) {
      entry.set("strides", Json::arrayOf(*spec->stridedStrides));
    }
    entry.set("initializer", spec->initializer.toString());
  }
  return entry;
}

void printSignature(const LoadedScript& loaded, std::ostream& out) {
  const ir::Fusion& fusion = *loaded.fusion;
  out << "fusion " << loaded.fusionName << " from " << loaded.script.fileName << ": "
      << fusion.inputs().size() << " inputs, " << fusion.outputs().size() << " outputs, "
      << fusion.exprsForOutputs().size() << " ops\n";
  if (loaded.script.definitions.size() > 1) {
    out << "definitions in the file:";
    for (const auto& def : loaded.script.definitions) out << " " << def.functionName;
    out << " (choose with --fusion NAME)\n";
  }
  out << "input signature" << (loaded.inputs ? " (sizes from " + loaded.inputsOrigin + ")" : "")
      << ":\n";
  for (size_t i = 0; i < fusion.inputs().size(); ++i) {
    const ir::Val* input = fusion.inputs()[i];
    out << "  " << i << ": " << input->name();
    if (!input->scriptName().empty() && input->scriptName() != input->name()) {
      out << " ('" << input->scriptName() << "' in the script)";
    }
    out << "  " << ir::toString(input->dtype());
    if (const auto* tv = input->as<ir::TensorView>()) {
      std::vector<std::string> extents, contiguity;
      for (const ir::IterDomain* id : tv->logicalNoReductions()) {
        // An expanded broadcast as nvFuser prints it: "1 ex i3".
        if (id->hasExpandedExtent()) {
          extents.push_back("1 ex " + id->expandedExtent()->name());
        } else {
          extents.push_back(id->isBroadcast() ? "1" : id->extent()->name());
        }
      }
      for (const auto& flag : tv->contiguity()) {
        contiguity.push_back(contiguityString(flag));
      }
      out << listString(extents) << " contiguity " << listString(contiguity);
      if (auto order = tv->strideOrder(); !order.empty()) {
        std::vector<std::string> items;
        for (int64_t o : order) items.push_back(std::to_string(o));
        out << " stride_order " << listString(items);
      }
      if (tv->isCpuScalar()) out << " (cpu scalar)";
      if (loaded.inputs && !(*loaded.inputs)[i].isScalar) {
        const auto& spec = (*loaded.inputs)[i];
        std::vector<std::string> sizes;
        for (int64_t s : spec.stridedSizes.value_or(spec.sizes)) {
          sizes.push_back(std::to_string(s));
        }
        out << "  <- " << ir::shortName(spec.dtype) << listString(sizes);
        if (spec.stridedStrides) {  // as_strided or expand: the view's strides
          std::vector<std::string> strides;
          for (int64_t s : *spec.stridedStrides) strides.push_back(std::to_string(s));
          out << " strides " << listString(strides);
        }
        out << " " << spec.initializer.toString();
      }
    } else {
      out << " scalar";
    }
    out << "\n";
  }
}

// The compile summary: device, options, pass rewrites, and each segment with
// its scheduler, key params and the reason every other scheduler refused.
void printCompileSummary(const report::CompileReport& report, std::ostream& out) {
  const auto text = [](const report::Json* value) {
    return value == nullptr ? std::string("?")
                            : (value->isString() ? value->asString() : value->dump(-1));
  };
  out << "\ncompiled for " << text(report.device.get("name")) << " ("
      << text(report.device.get("key")) << ", " << text(report.device.get("arch"))
      << ") with bookend=" << text(report.options.get("bookend"))
      << " upcast=" << text(report.options.get("upcast")) << "\n";
  for (const auto& pass : report.passes) {
    if (!pass.enabled) {
      out << "pass " << pass.name << ": disabled\n";
      continue;
    }
    for (const auto& rewrite : pass.rewrites) {
      out << "pass " << pass.name << ": " << rewrite << "\n";
    }
  }
  const int kernels = report.kernelCount();
  out << "segments: " << report.segments.size() << " (" << kernels << " launching a kernel, "
      << static_cast<int>(report.segments.size()) - kernels
      << " kernel-free host steps), compiled in " << report.compileMicroseconds / 1000.0 << " ms\n";
  for (const auto& segment : report.segments) {
    out << "  segment " << segment.id << ": " << segment.scheduler
        << (segment.launchesKernel ? "" : " (no kernel)") << ", " << segment.exprs.size()
        << " exprs, outputs";
    for (const auto& name : segment.outputs) out << " " << name;
    out << "\n";
    if (!segment.params.isNull()) {
      out << "    params (" << segment.paramsSource
          << (segment.paramsEntryId != 0 ? ", entry " + std::to_string(segment.paramsEntryId)
                                         : std::string())
          << (segment.paramsOrigin.empty() ? std::string() : ", " + segment.paramsOrigin)
          << (segment.paramsFallbackDevice.empty()
                  ? std::string()
                  : ", measured on " + segment.paramsFallbackDevice +
                        ": a same-architecture fallback")
          << "): " << segment.params.dump(-1) << "\n";
    }
    if (!segment.paramsNote.empty()) {
      out << "    note: " << segment.paramsNote << "\n";
    }
    // The heuristic's reasons that the report carries as properties.
    for (const auto& [key, label] :
         {std::pair<const char*, const char*>{"vectorize_limited_by", "vectorize limited by"},
          {"shifted_rows_choice", "shifted rows"},
          {"cluster_reduction_choice", "cluster reduction"}}) {
      const report::Json* why = segment.properties.get(key);
      if (why != nullptr && why->isString() && !why->asString().empty()) {
        out << "    " << label << ": " << why->asString() << "\n";
      }
    }
    if (const report::Json* evaluation = segment.properties.get("evaluation");
        evaluation != nullptr && evaluation->isString() &&
        evaluation->asString() == "cpu_reference_only") {
      out << "    cpu reference only: "
          << (segment.exprs.empty() ? std::string("its op") : segment.exprs.front())
          << " runs only on the CPU reference here: no GPU kernel takes it at these sizes "
             "(run --backend cpu runs it; --backend cuda refuses it, saying why)\n";
    }
    if (const report::Json* collective = segment.properties.get("collective")) {
      const report::Json* in = segment.properties.get("input_sharding");
      const report::Json* to = segment.properties.get("output_sharding");
      const report::Json* bytes = segment.properties.get("bytes_per_device");
      out << "    collective: " << collective->asString() << " (" << (in ? in->asString() : "?")
          << " -> " << (to ? to->asString() : "?")
          << (bytes ? "; " + std::to_string(bytes->asInt()) + " bytes per device" : std::string())
          << ")\n";
    }
    for (const auto& rejection : segment.rejected) {
      out << "    not " << rejection.scheduler << ": " << rejection.reason << "\n";
    }
  }
}

}  // namespace

int inspectCommand(const std::vector<std::string>& args) {
  std::set<std::string> options = kScriptOptions;
  options.insert({"dump", "json"});
  options.insert(kCompileOptions.begin(), kCompileOptions.end());
  options.insert(kDatabaseOptions.begin(), kDatabaseOptions.end());
  options.insert(kSegmentReproOptions.begin(), kSegmentReproOptions.end());
  CommandLine cl(args, options, kDatabaseFlags);
  LoadedScript loaded = loadScript(cl);
  const bool repros = wantsSegmentRepros(cl, loaded);
  const ir::Fusion& fusion = *loaded.fusion;
  const auto dumps = requestedDumps(cl);
  const compiler::CompileOptions compileOptions = compileOptionsFrom(cl);
  const scheduler::DeviceSpec device = deviceFrom(cl);

  const bool jsonToStdout = cl.value("json") == "-";
  std::ostream& text = jsonToStdout ? std::cerr : std::cout;
  printSignature(loaded, text);

  const auto database = heuristicsDatabaseFrom(cl);
  if (database) {
    for (const auto& file : database->files()) {
      text << "heuristics database " << file->path() << ": " << file->size()
           << " entries for this FuserLab\n";
    }
    if (database->options().allowSameArchitecture) {
      text << "  entries of other devices of the same architecture answer last "
              "(--allow-same-arch)\n";
    }
    for (const auto& note : database->notes()) text << "  note: " << note << "\n";
  }

  std::optional<runtime::CompiledFusion> compiled;
  if (loaded.inputs) {
    compiled = runtime::compileFusion(fusion, compileOptions, device,
                                      frontend::makeInputShapes(*loaded.inputs), database.get());
    printCompileSummary(compiled->report, text);
    if (repros) writeSegmentRepros(cl, loaded, *compiled, text);
  } else {
    text << "\nno input sizes: the script has no inputs block; pass --inputs "
            "to see its segmentation and heuristics\n";
  }
  printDumps(dumps, loaded, compiled ? &*compiled : nullptr, device, text);

  if (auto path = cl.value("json")) {
    Json root = Json::object();
    root.set("file", loaded.script.fileName);
    root.set("fusion", loaded.fusionName);
    Json definitions = Json::array();
    for (const auto& def : loaded.script.definitions) {
      definitions.push(def.functionName);
    }
    root.set("definitions", std::move(definitions));
    Json inputs = Json::array();
    for (size_t i = 0; i < fusion.inputs().size(); ++i) {
      inputs.push(
          inputSignature(fusion.inputs()[i], i, loaded.inputs ? &(*loaded.inputs)[i] : nullptr));
    }
    root.set("inputs", std::move(inputs));
    Json outputs = Json::array();
    for (const auto& out : fusion.outputs()) {
      Json entry = Json::object();
      entry.set("name", out.val->name());
      entry.set("dtype", std::string(ir::toString(out.val->dtype())));
      if (const auto* tv = out.val->as<ir::TensorView>()) {
        entry.set("rank", tv->rank());
        if (auto order = tv->strideOrder(); !order.empty()) {
          entry.set("stride_order", Json::arrayOf(order));
        }
      }
      if (out.aliasOf) entry.set("alias_of", out.aliasOf->name());
      outputs.push(std::move(entry));
    }
    root.set("outputs", std::move(outputs));
    root.set("fusion_ir", ir::printFusionIr(fusion));
    if (database) {
      Json db = Json::object();
      db.set("path", database->path());
      db.set("entries", static_cast<int64_t>(database->size()));
      Json files = Json::array();
      for (const auto& file : database->files()) {
        Json one = Json::object();
        one.set("path", file->path());
        one.set("entries", static_cast<int64_t>(file->size()));
        files.push(std::move(one));
      }
      db.set("search_path", std::move(files));
      db.set("allow_same_arch", database->options().allowSameArchitecture);
      db.set("notes", Json::arrayOf(database->notes()));
      root.set("heuristics_database", std::move(db));
    }
    if (compiled) {
      // The compile report's keys sit at the top level beside the signature.
      report::Json compiledJson = compiled->report.toJson();
      for (const char* key :
           {"device", "options", "passes", "segments", "edges", "values", "decisions",
            "segment_count", "kernel_count", "host_step_count", "compile_us"}) {
        if (const report::Json* value = compiledJson.get(key)) {
          root.set(key, *value);
        }
      }
    }
    writeOutput(*path, root.dump() + "\n");
  }
  return 0;
}

}  // namespace fuserlab::cli
