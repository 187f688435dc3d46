#include "python/src/tensor_exchange.h"

#include <vector>

#include "core/ir/error.h"
#include "python/src/dlpack.h"

namespace py = pybind11;

namespace fuserlab::python {
namespace {

ir::DataType fromDLPack(const DLDataType& type) {
  FL_CHECK(type.lanes == 1, "DLPack tensors with ", type.lanes, " lanes are not supported");
  switch (type.code) {
    case kDLFloat:
      if (type.bits == 16) return ir::DataType::Half;
      if (type.bits == 32) return ir::DataType::Float;
      if (type.bits == 64) return ir::DataType::Double;
      break;
    case kDLBfloat:
      if (type.bits == 16) return ir::DataType::BFloat16;
      break;
    case kDLInt:
      if (type.bits == 32) return ir::DataType::Int32;
      if (type.bits == 64) return ir::DataType::Int;
      break;
    case kDLBool:
    case kDLUInt:  // numpy < 1.25 exports bool as uint8
      if (type.bits == 8) return ir::DataType::Bool;
      break;
    default: break;
  }
  FL_USER_ERROR("a DLPack tensor of type code ", int(type.code), " with ", int(type.bits),
                " bits: FuserLab takes bool, int32, int64, float16, bfloat16, float32 "
                "and float64");
}

DLDataType toDLPack(ir::DataType dtype) {
  switch (dtype) {
    case ir::DataType::Bool: return {kDLBool, 8, 1};
    case ir::DataType::Int32: return {kDLInt, 32, 1};
    case ir::DataType::Int: return {kDLInt, 64, 1};
    case ir::DataType::Half: return {kDLFloat, 16, 1};
    case ir::DataType::BFloat16: return {kDLBfloat, 16, 1};
    case ir::DataType::Float: return {kDLFloat, 32, 1};
    case ir::DataType::Double: return {kDLFloat, 64, 1};
    case ir::DataType::Null: break;
  }
  FL_ASSERT(false, "an output without a dtype");
}

// What an exported capsule's DLManagedTensor owns.
struct Holder {
  runtime::DeviceTensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor managed{};
  DLManagedTensorVersioned versioned{};
};

void deleteHolder(DLManagedTensor* managed) { delete static_cast<Holder*>(managed->manager_ctx); }
void deleteVersionedHolder(DLManagedTensorVersioned* managed) {
  delete static_cast<Holder*>(managed->manager_ctx);
}

// The DLTensor of a holder's tensor (its shape and strides the holder's).
void describe(Holder& holder, DLTensor& t) {
  const runtime::Tensor& tensor = holder.tensor.tensor;
  t.data = tensor.data();
  t.device = tensor.isCpu() ? DLDevice{kDLCPU, 0}
                            : DLDevice{kDLCUDA, static_cast<int32_t>(tensor.device().index)};
  t.ndim = static_cast<int32_t>(holder.shape.size());
  t.dtype = toDLPack(tensor.dtype());
  t.shape = holder.shape.data();
  t.strides = holder.strides.data();
  t.byte_offset = 0;
}

// A capsule nobody consumed frees its tensor when Python collects it.
void capsuleDestructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
  } else {
    PyErr_Clear();
  }
}

// torch.Tensor and torch.utils.dlpack.to_dlpack (a C function), looked up
// once torch is imported; null handles until then.
struct TorchExport {
  py::object tensorType;
  py::object toDlpack;
};

const TorchExport& torchExport() {
  // Never destroyed: Python objects must not be released after the
  // interpreter is gone.
  static TorchExport* found = new TorchExport;
  static bool looked = false;
  if (!looked) {
    py::dict modules = py::module_::import("sys").attr("modules");
    if (!modules.contains("torch")) return *found;  // not yet: look again next time
    looked = true;
    try {
      py::object torch = modules["torch"];
      found->tensorType = torch.attr("Tensor");
      found->toDlpack = py::module_::import("torch.utils.dlpack").attr("to_dlpack");
    } catch (const py::error_already_set&) {
      found->tensorType = py::object();
      found->toDlpack = py::object();
    }
  }
  return *found;
}

// The capsule of `object`: torch's C-level export for a torch tensor (its
// __dlpack__ is Python code around the same call), __dlpack__ otherwise.
py::object dlpackCapsule(const py::object& object) {
  const TorchExport& torch = torchExport();
  if (torch.toDlpack && PyObject_IsInstance(object.ptr(), torch.tensorType.ptr()) == 1) {
    return torch.toDlpack(object);
  }
  FL_CHECK(py::hasattr(object, "__dlpack__"),
           "expected a tensor with __dlpack__ (a numpy "
           "array or a torch tensor) or a Python number, found ",
           std::string(py::str(py::type::of(object).attr("__name__"))));
  return object.attr("__dlpack__")();
}

}  // namespace

namespace {

// A runtime::Tensor over a DLTensor's memory (sizes and strides copied).
runtime::Tensor borrowDLTensor(const DLTensor& t) {
  const ir::DataType dtype = fromDLPack(t.dtype);
  std::vector<int64_t> sizes(t.shape, t.shape + t.ndim);
  std::vector<int64_t> strides = t.strides != nullptr
                                     ? std::vector<int64_t>(t.strides, t.strides + t.ndim)
                                     : runtime::Tensor::contiguousStrides(sizes);
  runtime::DeviceKind kind;
  if (t.device.device_type == kDLCPU || t.device.device_type == kDLCUDAHost) {
    kind = runtime::DeviceKind::Cpu;
  } else if (t.device.device_type == kDLCUDA || t.device.device_type == kDLCUDAManaged) {
    kind = runtime::DeviceKind::Cuda;
  } else {
    FL_USER_ERROR("a DLPack tensor on device type ", int(t.device.device_type),
                  ": FuserLab takes CPU and CUDA tensors");
  }
  char* data = static_cast<char*>(t.data) + t.byte_offset;
  return runtime::Tensor::borrow(data, dtype, std::move(sizes), std::move(strides), 0, kind,
                                 t.device.device_id);
}

// The exchange table a type names, or null: `__dlpack_c_exchange_api__` (a
// capsule, torch >= 2.10) or the earlier spelling `__c_dlpack_exchange_api__`
// (an integer address), of major version 1.
const DLPackExchangeAPI* lookUpExchangeApi(PyObject* type) {
  const DLPackExchangeAPI* api = nullptr;
  if (PyObject* attribute = PyObject_GetAttrString(type, "__dlpack_c_exchange_api__")) {
    if (PyCapsule_IsValid(attribute, "dlpack_exchange_api")) {
      api = static_cast<const DLPackExchangeAPI*>(
          PyCapsule_GetPointer(attribute, "dlpack_exchange_api"));
    }
    Py_DECREF(attribute);
  } else if (PyObject* address = PyObject_GetAttrString(type, "__c_dlpack_exchange_api__")) {
    PyErr_Clear();
    if (PyLong_Check(address))
      api = static_cast<const DLPackExchangeAPI*>(PyLong_AsVoidPtr(address));
    Py_DECREF(address);
  }
  PyErr_Clear();
  if (api == nullptr || api->header.version.major != 1 ||
      api->managed_tensor_to_py_object_no_sync == nullptr ||
      api->managed_tensor_from_py_object_no_sync == nullptr ||
      api->current_work_stream == nullptr) {
    return nullptr;
  }
  return api;
}

}  // namespace

const DLPackExchangeAPI* exchangeApiOf(const py::handle& object) {
  // Per type, looked up once (a tensor type lives as long as the process;
  // numbers and numpy arrays are remembered as having none).
  struct Known {
    PyTypeObject* type;
    const DLPackExchangeAPI* api;
  };
  static std::vector<Known> known;
  PyTypeObject* type = Py_TYPE(object.ptr());
  for (const Known& entry : known) {
    if (entry.type == type) return entry.api;
  }
  const DLPackExchangeAPI* api = lookUpExchangeApi(reinterpret_cast<PyObject*>(type));
  if (known.size() < 64) known.push_back({type, api});
  return api;
}

BorrowedTensor::BorrowedTensor(const py::object& object) {
  if (const DLPackExchangeAPI* api = exchangeApiOf(object)) {
    // The framework's C calls: a view (or an owned export) without a capsule.
    if (api->dltensor_from_py_object_no_sync != nullptr) {
      DLTensor view{};
      if (api->dltensor_from_py_object_no_sync(object.ptr(), &view) != 0) {
        throw py::error_already_set();
      }
      tensor_ = borrowDLTensor(view);
      return;
    }
    if (api->managed_tensor_from_py_object_no_sync(object.ptr(), &versioned_) != 0) {
      throw py::error_already_set();
    }
    tensor_ = borrowDLTensor(versioned_->dl_tensor);
    return;
  }
  py::object capsule = dlpackCapsule(object);
  PyObject* raw = capsule.ptr();
  FL_CHECK(PyCapsule_IsValid(raw, "dltensor"), "__dlpack__ gave no 'dltensor' capsule");
  managed_ = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(raw, "dltensor"));
  PyCapsule_SetName(raw, "used_dltensor");  // ours now: we call the deleter
  tensor_ = borrowDLTensor(managed_->dl_tensor);
}

BorrowedTensor::~BorrowedTensor() {
  if (managed_ != nullptr && managed_->deleter != nullptr) managed_->deleter(managed_);
  if (versioned_ != nullptr && versioned_->deleter != nullptr) versioned_->deleter(versioned_);
}

py::capsule ExportedTensor::dlpack(const py::object& /*stream*/) {
  FL_CHECK(!exported_, "this output was already handed over through DLPack");
  exported_ = true;
  runtime::DeviceTensor tensor = std::move(tensor_);
  tensor_ = {};  // the capsule's holder keeps it now
  return exportCapsule(std::move(tensor));
}

py::capsule exportCapsule(runtime::DeviceTensor held) {
  auto* holder = new Holder{std::move(held), {}, {}, {}, {}};
  holder->shape = holder->tensor.tensor.sizes();
  holder->strides = holder->tensor.tensor.strides();
  describe(*holder, holder->managed.dl_tensor);
  holder->managed.manager_ctx = holder;
  holder->managed.deleter = deleteHolder;
  return py::reinterpret_steal<py::capsule>(
      PyCapsule_New(&holder->managed, "dltensor", capsuleDestructor));
}

py::object exportToFramework(const DLPackExchangeAPI& api, runtime::DeviceTensor held) {
  auto* holder = new Holder{std::move(held), {}, {}, {}, {}};
  holder->shape = holder->tensor.tensor.sizes();
  holder->strides = holder->tensor.tensor.strides();
  DLManagedTensorVersioned& managed = holder->versioned;
  managed.version = {1, 1};
  managed.manager_ctx = holder;
  managed.deleter = deleteVersionedHolder;
  managed.flags = 0;
  describe(*holder, managed.dl_tensor);
  void* object = nullptr;
  // The framework owns the tensor from here, also when the call fails.
  if (api.managed_tensor_to_py_object_no_sync(&managed, &object) != 0) {
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(static_cast<PyObject*>(object));
}

bool onDefaultStream(const DLPackExchangeAPI& api, int device) {
  void* stream = nullptr;
  if (api.current_work_stream(kDLCUDA, device, &stream) != 0) {
    PyErr_Clear();
    return false;  // unknown: the caller waits for the GPU
  }
  return stream == nullptr;
}

py::tuple ExportedTensor::dlpackDevice() const {
  if (device_.kind == runtime::DeviceKind::Cpu) return py::make_tuple(int(kDLCPU), 0);
  return py::make_tuple(int(kDLCUDA), device_.index);
}

}  // namespace fuserlab::python
