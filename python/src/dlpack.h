// DLPack: the tensor exchange ABI of the Python array libraries (numpy,
// PyTorch, CuPy, JAX), written here from its public specification
// (dmlc/dlpack, include/dlpack/dlpack.h, version 0.8 of the unversioned ABI,
// which numpy >= 1.22 and torch >= 1.10 both speak) rather than vendored.
// A producer hands a PyCapsule named "dltensor" that holds a DLManagedTensor;
// the consumer renames it "used_dltensor" and calls the deleter when it no
// longer needs the memory.
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

}  // extern "C"
