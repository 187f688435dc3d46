// Tensors across the Python boundary as DLPack: an imported array borrowed
// as a runtime::Tensor (no copy), and a FuserLab output exported as a
// DLPack capsule whose deleter frees it.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>

#include "core/cuda/cuda_memory.h"
#include "core/tensor/tensor.h"
#include "python/src/dlpack.h"

namespace fuserlab::python {

//! An array borrowed through DLPack: the tensor over the producer's memory,
//! and the producer's DLManagedTensor, released (deleter called) when this
//! is destroyed.
class BorrowedTensor {
 public:
  //! Through the exchange table of `object`'s type where it has one (torch
  //! >= 2.10: a view by one C call), else `object.__dlpack__()` consumed
  //! (for a torch tensor, torch's C-level to_dlpack). A dtype or device
  //! FuserLab does not take is a UserError naming it.
  explicit BorrowedTensor(const pybind11::object& object);
  ~BorrowedTensor();
  BorrowedTensor(const BorrowedTensor&) = delete;
  BorrowedTensor& operator=(const BorrowedTensor&) = delete;

  const runtime::Tensor& tensor() const { return tensor_; }

 private:
  DLManagedTensor* managed_ = nullptr;
  DLManagedTensorVersioned* versioned_ = nullptr;
  runtime::Tensor tensor_;
};

//! A FuserLab output, held until its DLPack consumer frees it. Python sees
//! it as an object with __dlpack__ and __dlpack_device__, which
//! numpy.from_dlpack and torch.from_dlpack take.
class ExportedTensor {
 public:
  explicit ExportedTensor(runtime::DeviceTensor tensor)
      : tensor_(std::move(tensor)), device_(tensor_.tensor.device()) {}
  //! The capsule ("dltensor"); once only.
  pybind11::capsule dlpack(const pybind11::object& stream);
  //! (device type, device id) as DLPack numbers them.
  pybind11::tuple dlpackDevice() const;
  const runtime::Tensor& tensor() const { return tensor_.tensor; }

 private:
  runtime::DeviceTensor tensor_;
  runtime::Device device_;
  bool exported_ = false;
};

//! `tensor` as a DLPack capsule ("dltensor") whose deleter frees it: what
//! ExportedTensor::dlpack gives, without the Python object around it.
pybind11::capsule exportCapsule(runtime::DeviceTensor tensor);

//! The DLPack exchange table of `object`'s type (torch.Tensor's in torch >=
//! 2.10), or null; looked up once per type.
const DLPackExchangeAPI* exchangeApiOf(const pybind11::handle& object);

//! `tensor` as the framework's own tensor object (a torch.Tensor over
//! FuserLab's buffer, freed when torch drops it), by the table's C call.
pybind11::object exportToFramework(const DLPackExchangeAPI& api, runtime::DeviceTensor tensor);

//! Whether the framework's current stream on CUDA device `device` is the
//! legacy default stream (torch's default: a null stream), the one FuserLab
//! launches on; false when it cannot say.
bool onDefaultStream(const DLPackExchangeAPI& api, int device);

}  // namespace fuserlab::python
