// The `fuserlab._fuserlab` extension: the C++ half of the Python module.
// python/fuserlab/ holds the Python half (FusionDefinition with nvFuser's
// API); this file only exposes FusionSession (fusion_session.h), the DLPack
// exchange (tensor_exchange.h), DataType and FuserLab's errors.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/cuda/cuda_device.h"
#include "core/ir/data_type.h"
#include "core/ir/error.h"
#include "core/ir/printer.h"
#include "core/report/compile_report.h"
#include "python/src/fusion_session.h"
#include "python/src/tensor_exchange.h"

namespace py = pybind11;
using fuserlab::frontend::BuilderKeywords;
using fuserlab::frontend::BuilderValue;
using fuserlab::python::ExportedTensor;
using fuserlab::python::FusionSession;

namespace {

std::vector<BuilderValue> positional(const FusionSession& s, const py::iterable& args) {
  std::vector<BuilderValue> out;
  for (const py::handle& arg : args) out.push_back(s.toBuilder(arg));
  return out;
}

BuilderKeywords keywords(const FusionSession& s, const py::dict& kwargs) {
  BuilderKeywords out;
  for (const auto& [key, value] : kwargs) out.emplace_back(py::str(key), s.toBuilder(value));
  return out;
}

}  // namespace

PYBIND11_MODULE(_fuserlab, m) {
  m.doc() = "FuserLab's compiler and executor (the C++ half of the fuserlab package)";

  static py::exception<fuserlab::UserError> userError(m, "FuserLabError", PyExc_ValueError);
  // pybind11 fixes the signature: the exception_ptr by value.
  py::register_exception_translator(
      [](std::exception_ptr p) {  // NOLINT(performance-unnecessary-value-param)
        try {
          if (p) std::rethrow_exception(p);
        } catch (const fuserlab::UserError& e) {
          PyErr_SetString(userError.ptr(), e.what());
        }
      });

  py::enum_<fuserlab::ir::DataType>(m, "DataType")
      .value("Null", fuserlab::ir::DataType::Null)
      .value("Bool", fuserlab::ir::DataType::Bool)
      .value("Int32", fuserlab::ir::DataType::Int32)
      .value("Int", fuserlab::ir::DataType::Int)
      .value("Half", fuserlab::ir::DataType::Half)
      .value("BFloat16", fuserlab::ir::DataType::BFloat16)
      .value("Float", fuserlab::ir::DataType::Float)
      .value("Double", fuserlab::ir::DataType::Double);

  py::class_<ExportedTensor>(m, "ExportedTensor")
      .def("__dlpack__", &ExportedTensor::dlpack, py::arg("stream") = py::none())
      .def("__dlpack_device__", &ExportedTensor::dlpackDevice);

  py::class_<FusionSession>(m, "FusionSession")
      .def(py::init<py::function>())
      .def("call_fd",
           [](FusionSession& s, const std::string& name, const py::tuple& args,
              const py::dict& kwargs, const std::string& where) {
             return s.fromBuilder(
                 s.builder().callFd(name, positional(s, args), keywords(s, kwargs), where));
           })
      .def("call_op",
           [](FusionSession& s, const std::string& name, const py::tuple& args,
              const py::dict& kwargs, const std::string& where) {
             return s.fromBuilder(
                 s.builder().callOp(name, positional(s, args), keywords(s, kwargs), where));
           })
      .def("tensor_method",
           [](FusionSession& s, int64_t handle, const std::string& name, const py::tuple& args,
              const std::string& where) {
             return s.fromBuilder(
                 s.builder().callTensorMethod(handle, name, positional(s, args), where));
           })
      .def("binary_operator",
           [](FusionSession& s, const std::string& op, const py::object& lhs, const py::object& rhs,
              const std::string& where) {
             return s.fromBuilder(
                 s.builder().binaryOperator(op, s.toBuilder(lhs), s.toBuilder(rhs), where));
           })
      .def("unary_operator",
           [](FusionSession& s, const std::string& op, const py::object& operand,
              const std::string& where) {
             return s.fromBuilder(s.builder().unaryOperator(op, s.toBuilder(operand), where));
           })
      .def("value_info",
           [](FusionSession& s, int64_t handle) {
             const fuserlab::ir::Val* val = s.builder().val(handle);
             const auto* tv = val->as<fuserlab::ir::TensorView>();
             return py::make_tuple(val->name(), tv != nullptr, py::cast(val->dtype()),
                                   tv != nullptr ? tv->rank() : 0);
           })
      .def("fusion_ir",
           [](FusionSession& s) { return fuserlab::ir::printFusionIr(s.builder().fusion()); })
      .def("input_count", [](FusionSession& s) { return s.builder().fusion().inputs().size(); })
      .def("output_count", [](FusionSession& s) { return s.builder().fusion().outputs().size(); })
      .def("set_options", &FusionSession::setOptions)
      .def("compile", [](FusionSession& s,
                         const py::list& inputs) { return s.compile(inputs).toJson().dump(); })
      .def("execute", &FusionSession::execute, py::arg("inputs"), py::arg("synchronize") = true,
           py::arg("capsules") = false)
      // Positional only: the cached execute's own path, kept short.
      .def("execute_exchange", &FusionSession::executeExchange)
      .def("report_json",
           [](FusionSession& s) -> py::object {
             const fuserlab::report::CompileReport* report = s.lastReport();
             if (report == nullptr) return py::none();
             return py::str(report->toJson().dump());
           })
      .def("cuda_code", &FusionSession::cudaCode)
      .def("repro_script", &FusionSession::reproScript)
      .def("segment_script", &FusionSession::segmentScript)
      .def("stats", &FusionSession::stats);

  m.def("cuda_device_count", [] { return fuserlab::runtime::cudaDeviceCount(); });
}
