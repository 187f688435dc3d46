// DLPack: the tensor exchange ABI of the Python array libraries (numpy,
// PyTorch, CuPy, JAX), written here from its public specification
// (dmlc/dlpack, include/dlpack/dlpack.h, version 0.8 of the unversioned ABI,
// which numpy >= 1.22 and torch >= 1.10 both speak) rather than vendored.
// A producer hands a PyCapsule named "dltensor" that holds a DLManagedTensor;
// the consumer renames it "used_dltensor" and calls the deleter when it no
// longer needs the memory.
//
// Also DLPack 1.2's C exchange table (DLPackExchangeAPI): a framework puts a
// pointer to it on its tensor type (`__dlpack_c_exchange_api__`, a capsule
// named "dlpack_exchange_api"; torch >= 2.10) so a consumer converts tensors
// and asks for the current stream by plain C calls, without a capsule or a
// Python call per tensor.
#pragma once

#include <cstdint>

extern "C" {

enum DLDeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13,
};

struct DLDevice {
  DLDeviceType device_type;
  int32_t device_id;
};

enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  //!< in elements; null means compact row-major
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  DLPackExchangeAPIHeader* prev_api;
};

//! Each call returns 0, or -1 with a Python exception set; the caller holds
//! the GIL.
struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  int (*managed_tensor_allocator)(DLTensor* prototype, DLManagedTensorVersioned** out,
                                  void* error_context,
                                  void (*set_error)(void* error_context, const char* kind,
                                                    const char* message));
  //! An owning export of a Python tensor (no stream synchronization).
  int (*managed_tensor_from_py_object_no_sync)(void* py_object, DLManagedTensorVersioned** out);
  //! The framework's tensor over `tensor`, whose ownership it takes.
  int (*managed_tensor_to_py_object_no_sync)(DLManagedTensorVersioned* tensor,
                                             void** out_py_object);
  //! A non-owning view, valid while the Python tensor is; may be null.
  int (*dltensor_from_py_object_no_sync)(void* py_object, DLTensor* out);
  //! The framework's current stream on a device (torch.cuda.current_stream).
  int (*current_work_stream)(DLDeviceType device_type, int32_t device_id, void** out_stream);
};

}  // extern "C"
