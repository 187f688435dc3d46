#include "python/src/fusion_session.h"

#include <pybind11/stl.h>

#include "core/compiler/input_description.h"
#include "core/compiler/segment_kernels.h"
#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_memory.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/inputs_block_writer.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/reference/reference_run.h"
#include "core/repro/segment_repro.h"
#include "python/src/tensor_exchange.h"

namespace py = pybind11;

namespace fuserlab::python {

using frontend::BuilderValue;

FusionSession::FusionSession(py::function makeValue) : makeValue_(std::move(makeValue)) {}

BuilderValue FusionSession::toBuilder(const py::handle& object) const {
  if (object.is_none()) return BuilderValue::none();
  if (py::isinstance<py::bool_>(object)) return BuilderValue::boolean(object.cast<bool>());
  if (py::isinstance<ir::DataType>(object))
    return BuilderValue::dataType(object.cast<ir::DataType>());
  if (py::hasattr(object, "_fl_handle")) {
    return BuilderValue::val(object.attr("_fl_handle").cast<int64_t>());
  }
  if (py::isinstance<py::int_>(object)) return BuilderValue::integer(object.cast<int64_t>());
  if (py::isinstance<py::float_>(object)) return BuilderValue::floating(object.cast<double>());
  if (py::isinstance<py::str>(object)) return BuilderValue::string(object.cast<std::string>());
  if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    std::vector<BuilderValue> items;
    for (const py::handle& item : object) items.push_back(toBuilder(item));
    return BuilderValue::sequence(std::move(items), py::isinstance<py::tuple>(object));
  }
  if (py::hasattr(object, "__index__")) {  // numpy integers
    return BuilderValue::integer(object.attr("__index__")().cast<int64_t>());
  }
  FL_USER_ERROR("a ", std::string(py::str(py::type::of(object).attr("__name__"))),
                " cannot be passed to a FusionDefinition call; expected a fusion value, "
                "a number, a DataType, a string, None, or a list or tuple of these");
}

py::object FusionSession::fromBuilder(const BuilderValue& value) const {
  using K = BuilderValue::Kind;
  switch (value.kind) {
    case K::None: return py::none();
    case K::Bool: return py::bool_(value.boolValue);
    case K::Int: return py::int_(value.intValue);
    case K::Float: return py::float_(value.floatValue);
    case K::String: return py::str(value.text);
    case K::DataType: return py::cast(value.dtype);
    case K::Val: return makeValue_(value.intValue);
    case K::List: {
      py::list out;
      for (const BuilderValue& item : value.items) out.append(fromBuilder(item));
      return out;
    }
    case K::Tuple: {
      py::tuple out(value.items.size());
      for (size_t i = 0; i < value.items.size(); ++i) out[i] = fromBuilder(value.items[i]);
      return out;
    }
  }
  return py::none();
}

void FusionSession::setOptions(const py::dict& options) {
  for (const auto& [key, value] : options) {
    const std::string name = py::str(key);
    if (name == "device") {
      device_ = value.is_none() ? std::string() : std::string(py::str(value));
      FL_CHECK(device_.empty() || runtime::resolveDevice(device_).has_value() ||
                   device_.starts_with("cuda"),
               "device='", device_, "' is not a built-in device (fuserlab-cli devices lists them)");
    } else if (name == "disable_passes") {
      for (const py::handle& pass : value) options_.disablePass(py::str(pass).cast<std::string>());
    } else {
      options_.set(name, std::string(py::str(value)));
    }
  }
  compiles_.clear();
  last_ = nullptr;
  gpu_.reset();
}

FusionSession::Bound FusionSession::bind(const py::list& inputs) const {
  Bound bound;
  for (const py::handle& input : inputs) {
    if (py::isinstance<py::bool_>(input)) {
      bound.arguments.emplace_back(ir::ScalarValue(input.cast<bool>()));
    } else if (py::isinstance<py::int_>(input)) {
      bound.arguments.emplace_back(ir::ScalarValue(input.cast<int64_t>()));
    } else if (py::isinstance<py::float_>(input)) {
      bound.arguments.emplace_back(ir::ScalarValue(input.cast<double>()));
    } else {
      bound.borrowed.push_back(
          std::make_unique<BorrowedTensor>(py::reinterpret_borrow<py::object>(input)));
      const runtime::Tensor& tensor = bound.borrowed.back()->tensor();
      if (!tensor.isCpu() && tensor.dim() > 0) {
        bound.onGpu = true;
        bound.gpu = tensor.device().index;
      }
      bound.arguments.emplace_back(tensor);
    }
  }
  const size_t expected = builder_.fusion().inputs().size();
  FL_CHECK(bound.arguments.size() == expected, "the fusion has ", expected,
           " inputs but execute was given ", bound.arguments.size());
  return bound;
}

std::string FusionSession::signatureOf(const runtime::Arguments& arguments) const {
  std::string key;
  for (const runtime::Argument& argument : arguments) {
    if (const auto* tensor = std::get_if<runtime::Tensor>(&argument)) {
      key += std::string(ir::toString(tensor->dtype())) + "[";
      for (int64_t s : tensor->sizes()) key += std::to_string(s) + ",";
      key += "]{";
      for (int64_t s : tensor->strides()) key += std::to_string(s) + ",";
      key += "}" + tensor->device().toString() + ";";
    } else {
      key += "scalar;";
    }
  }
  return key;
}

scheduler::DeviceSpec FusionSession::compileDevice() const {
  auto device = runtime::resolveDevice(device_);
  return device ? *device : scheduler::defaultDevice();
}

namespace {

// The inputs block entry that makes a tensor of `tensor`'s dtype and layout.
frontend::InputSpec specOf(const runtime::Argument& argument) {
  frontend::InputSpec spec;
  if (const auto* scalar = std::get_if<ir::ScalarValue>(&argument)) {
    spec.isScalar = true;
    spec.scalar = *scalar;
    return spec;
  }
  const auto& tensor = std::get<runtime::Tensor>(argument);
  spec.dtype = tensor.dtype();
  spec.device = "cuda:0";
  spec.initializer = ir::isFloatingPoint(tensor.dtype()) ? runtime::TensorInitializer::randn()
                                                         : runtime::TensorInitializer::makeTensor();
  spec.sizes = {runtime::spanElements(tensor.sizes(), tensor.strides())};
  spec.stridedSizes = tensor.sizes();
  spec.stridedStrides = tensor.strides();
  return spec;
}

}  // namespace

const report::CompileReport& FusionSession::compile(const py::list& inputs) {
  return compile(bind(inputs));
}

const report::CompileReport& FusionSession::compile(const Bound& bound) {
  const std::string key = signatureOf(bound.arguments);
  auto found = compiles_.find(key);
  if (found == compiles_.end()) {
    auto cached = std::make_unique<CachedCompile>();
    for (const runtime::Argument& argument : bound.arguments) {
      cached->specs.push_back(specOf(argument));
    }
    cached->shapes = frontend::makeInputShapes(cached->specs);
    cached->compiled =
        runtime::compileFusion(builder_.fusion(), options_, compileDevice(), cached->shapes);
    ++compileCount_;
    found = compiles_.emplace(key, std::move(cached)).first;
  }
  last_ = found->second.get();
  return last_->compiled.report;
}

namespace {

// An output handed to Python: a DLPack capsule, or an object with
// __dlpack__ (what numpy.from_dlpack takes).
py::object exportOutput(runtime::DeviceTensor tensor, bool capsule) {
  if (capsule) return exportCapsule(std::move(tensor));
  return py::cast(std::make_unique<ExportedTensor>(std::move(tensor)));
}

}  // namespace

std::vector<runtime::DeviceTensor> FusionSession::run(const Bound& bound, bool synchronize) {
  ++executeCount_;
  if (bound.onGpu) {
    if (!gpu_ || gpu_->device() != bound.gpu) {
      gpu_ = std::make_unique<runtime::GpuExecutor>(builder_.fusion(), bound.gpu, options_);
    }
    runtime::GpuRunResult result;
    runtime::GpuRunOptions options;
    options.synchronize = synchronize;
    {
      py::gil_scoped_release release;
      result = gpu_->run(bound.arguments, options);
    }
    if (result.stats.compiledFusion) ++compileCount_;
    gpuKernelsBuilt_ += result.stats.kernelsBuilt;
    return std::move(result.outputs);
  }
  compile(bound);  // the report and segments of this signature (cached)
  std::vector<runtime::Tensor> outputs;
  {
    py::gil_scoped_release release;
    outputs = runtime::runReference(builder_.fusion(), bound.arguments);
  }
  std::vector<runtime::DeviceTensor> exported;
  exported.reserve(outputs.size());
  for (runtime::Tensor& tensor : outputs) exported.push_back({std::move(tensor), nullptr});
  return exported;
}

py::list FusionSession::execute(const py::list& inputs, bool synchronize, bool capsules) {
  const Bound bound = bind(inputs);
  py::list out;
  for (runtime::DeviceTensor& tensor : run(bound, synchronize)) {
    out.append(exportOutput(std::move(tensor), capsules));
  }
  return out;
}

py::object FusionSession::executeExchange(const py::list& inputs, const py::object& synchronize) {
  const DLPackExchangeAPI* api = nullptr;
  for (const py::handle& input : inputs) {
    if ((api = exchangeApiOf(input)) != nullptr) break;
  }
  if (api == nullptr) return py::none();
  const Bound bound = bind(inputs);
  bool wait = true;
  if (bound.onGpu) {
    wait = synchronize.is_none() ? !onDefaultStream(*api, bound.gpu) : synchronize.cast<bool>();
  }
  py::list out;
  for (runtime::DeviceTensor& tensor : run(bound, wait)) {
    out.append(exportToFramework(*api, std::move(tensor)));
  }
  ++exchangeExecutes_;
  return out;
}

const report::CompileReport* FusionSession::lastReport() const {
  if (gpu_ != nullptr && gpu_->lastReport() != nullptr) return gpu_->lastReport();
  return last_ != nullptr ? &last_->compiled.report : nullptr;
}

std::string FusionSession::cudaCode(int segment) {
  FL_CHECK(last_ != nullptr, "no compile yet: call execute or report with inputs first");
  for (const auto& kernel :
       runtime::generateSegmentKernels(last_->compiled, compileDevice(), last_->shapes)) {
    if (kernel.segment != segment) continue;
    FL_CHECK(kernel.kernel.has_value(), "segment ", segment, " has no kernel: ", kernel.error);
    return kernel.kernel->source;
  }
  FL_USER_ERROR("segment ", segment, " launches no kernel (or does not exist: the fusion has ",
                last_->compiled.report.segments.size(), " segments)");
}

std::string FusionSession::reproScript(const py::list& inputs) {
  Bound bound = bind(inputs);
  std::vector<frontend::InputSpec> specs;
  for (const runtime::Argument& argument : bound.arguments) specs.push_back(specOf(argument));
  return frontend::writeScript(builder_.fusion(), "nvfuser_fusion_id0") + "\n" +
         frontend::writeInputsBlock(specs) + "fd.execute(inputs)\n";
}

std::string FusionSession::segmentScript(int segment) {
  FL_CHECK(last_ != nullptr, "no compile yet: call execute or report with inputs first");
  FL_CHECK(segment >= 0, "segment ", segment, " does not exist");
  return frontend::writeSegmentRepro(last_->compiled, static_cast<size_t>(segment), last_->specs,
                                     "a fuserlab.FusionDefinition");
}

py::dict FusionSession::stats() const {
  py::dict out;
  out["compiles"] = compileCount_;
  out["executes"] = executeCount_;
  out["gpu_kernels_built"] = gpuKernelsBuilt_;
  out["exchange_api_executes"] = exchangeExecutes_;
  return out;
}

}  // namespace fuserlab::python
