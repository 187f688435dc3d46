// fuserlab-cli run FILE [--backend cpu|cuda] [--inputs SPEC] [--seed N]
//                       [--save-inputs DIR] [--save-outputs DIR] [--fusion NAME]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/tensor_files.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "core/runtime/reference_run.h"

namespace fuserlab::cli {
namespace {

std::string shapeString(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return out + "]";
}

// One line per tensor: dtype, shape, strides and a few statistics, so a user
// sees at a glance whether a result is plausible (NaNs, all zeros, range).
std::string summarize(const runtime::Tensor& tensor) {
  std::string line = std::string(ir::shortName(tensor.dtype())) +
                     shapeString(tensor.sizes());
  if (!tensor.isContiguous()) line += " strides " + shapeString(tensor.strides());
  const runtime::Tensor values = tensor.to(ir::DataType::Double).contiguous();
  const double* data = values.dataAs<double>();
  const int64_t n = values.numel();
  if (n == 0) return line + " (empty)";
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(data[i])) {
      ++nans;
      continue;
    }
    lo = std::min(lo, data[i]);
    hi = std::max(hi, data[i]);
    sum += data[i];
  }
  char buffer[160];
  std::snprintf(buffer, sizeof(buffer), "  min %.6g  max %.6g  mean %.6g",
                lo, hi, n > nans ? sum / double(n - nans) : NAN);
  line += buffer;
  if (nans) line += "  NaN: " + std::to_string(nans);
  line += "  first:";
  for (int64_t i = 0; i < std::min<int64_t>(n, 4); ++i) {
    std::snprintf(buffer, sizeof(buffer), " %.6g", data[i]);
    line += buffer;
  }
  return line;
}

std::string describeArgument(const runtime::Argument& arg) {
  if (const auto* t = std::get_if<runtime::Tensor>(&arg)) return summarize(*t);
  const auto& v = std::get<ir::ScalarValue>(arg);
  if (const auto* d = std::get_if<double>(&v)) return "scalar " + ir::formatDouble(*d);
  if (const auto* i = std::get_if<int64_t>(&v)) return "scalar " + std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&v)) return std::string("scalar ") + (*b ? "true" : "false");
  return "scalar";
}

uint64_t parseSeed(const std::optional<std::string>& text) {
  if (!text) return 0;
  try {
    size_t used = 0;
    unsigned long long seed = std::stoull(*text, &used);
    FL_CHECK(used == text->size(), "");
    return seed;
  } catch (const std::exception&) {
    FL_USER_ERROR("--seed expects a non-negative integer, found '", *text, "'");
  }
}

}  // namespace

int runCommand(const std::vector<std::string>& args) {
  std::set<std::string> options = kScriptOptions;
  options.insert({"backend", "seed", "save-inputs", "save-outputs"});
  CommandLine cl(args, options, {});
  const std::string backend = cl.value("backend").value_or("cpu");
  FL_CHECK(backend == "cpu" || backend == "cuda",
           "--backend must be cpu or cuda, found '", backend, "'");
  FL_CHECK(backend == "cpu",
           "--backend cuda needs FuserLab's CUDA code generation, which this "
           "build does not have yet; use --backend cpu (the reference "
           "executor)");
  const uint64_t seed = parseSeed(cl.value("seed"));
  LoadedScript loaded = loadScript(cl);
  const ir::Fusion& fusion = *loaded.fusion;
  FL_CHECK(loaded.inputs.has_value() || fusion.inputs().empty(),
           loaded.script.fileName,
           " has no `inputs = [...]` block; pass the inputs with --inputs, "
           "e.g. --inputs 128x1024:bf16,1024:bf16");
  const std::vector<frontend::InputSpec> specs =
      loaded.inputs.value_or(std::vector<frontend::InputSpec>{});

  runtime::Arguments inputs = frontend::makeInputs(specs, seed);
  std::vector<NamedValue> namedInputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    namedInputs.push_back({fusion.inputs()[i]->name(),
                           "input_" + std::to_string(i), inputs[i]});
  }
  // Saved before the run: an output aliasing an input updates it in place.
  if (auto dir = cl.value("save-inputs")) saveTensors(*dir, namedInputs);

  std::cout << "fusion " << loaded.fusionName << " from "
            << loaded.script.fileName << " on the cpu reference backend\n";
  std::cout << "inputs (from " << (specs.empty() ? "none" : loaded.inputsOrigin)
            << ", seed " << seed << "):\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::cout << "  " << namedInputs[i].name << "  "
              << describeArgument(inputs[i]) << "\n";
  }

  const auto start = std::chrono::steady_clock::now();
  std::vector<runtime::Tensor> outputs = runtime::runReference(fusion, inputs);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  std::vector<NamedValue> namedOutputs;
  std::cout << "outputs:\n";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& out = fusion.outputs()[i];
    std::cout << "  " << out.val->name();
    if (out.aliasOf) std::cout << " (written into " << out.aliasOf->name() << ")";
    std::cout << "  " << summarize(outputs[i]) << "\n";
    namedOutputs.push_back(
        {out.val->name(), "output_" + std::to_string(i), outputs[i]});
  }
  std::printf("reference run: %.3f s, 0 kernel launches (cpu backend)\n",
              seconds);
  if (auto dir = cl.value("save-outputs")) {
    saveTensors(*dir, namedOutputs);
    std::cout << "saved " << namedOutputs.size() << " outputs to " << *dir
              << "\n";
  }
  if (auto dir = cl.value("save-inputs")) {
    std::cout << "saved " << namedInputs.size() << " inputs to " << *dir << "\n";
  }
  return 0;
}

}  // namespace fuserlab::cli
