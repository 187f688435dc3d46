// A strided tensor: a dtype, sizes, strides and a storage offset (both in
// elements) over a block of memory on a device.
//
// A Tensor is a handle, as torch::Tensor is: copying it shares the elements,
// and `const` guards the handle, not the elements. The memory is either owned
// (refcounted, shared by every view made from it, 64-byte aligned host memory)
// or borrowed (a pointer someone else keeps alive). Invariants: sizes, strides
// and the storage offset are non-negative; for owned storage every element any
// view can address lies inside the allocation. CUDA tensors can only be
// borrowed for now; element access and copies need a CPU tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/data_type.h"
#include "core/ir/error.h"

namespace fuserlab::runtime {

enum class DeviceKind : uint8_t { Cpu, Cuda };

//! Where a tensor's elements live: the host, or CUDA device `index`.
struct Device {
  DeviceKind kind = DeviceKind::Cpu;
  int index = 0;

  bool operator==(const Device&) const = default;
  //! "cpu" or "cuda:<index>".
  std::string toString() const;
};

class Tensor {
 public:
  //! An undefined tensor (dtype Null, no storage); `defined()` is false.
  Tensor() = default;

  //! A contiguous, uninitialised CPU tensor.
  static Tensor empty(ir::DataType dtype, std::vector<int64_t> sizes);
  //! An uninitialised CPU tensor with the given strides, allocating exactly the
  //! span they address (zero bytes when an extent is zero).
  static Tensor emptyStrided(ir::DataType dtype, std::vector<int64_t> sizes,
                             std::vector<int64_t> strides);
  //! A non-owning tensor over `data` (the storage start; the first element is
  //! at `storageOffset`). The caller keeps the memory alive and large enough.
  static Tensor borrow(void* data, ir::DataType dtype, std::vector<int64_t> sizes,
                       std::vector<int64_t> strides, int64_t storageOffset, DeviceKind deviceKind,
                       int deviceIndex = 0);

  //! A tensor with a layout but no data (data() is null): what the compiler
  //! binds to learn sizes, strides and the storage offset's alignment.
  static Tensor metadata(ir::DataType dtype, std::vector<int64_t> sizes,
                         std::vector<int64_t> strides, int64_t storageOffset, Device device);

  //! Row-major strides; a zero extent counts as one (as PyTorch does).
  static std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes);

  bool defined() const { return dtype_ != ir::DataType::Null; }
  //! True for Tensor::metadata: a layout without data.
  bool isMetadataOnly() const { return metadataOnly_; }
  ir::DataType dtype() const { return dtype_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  const std::vector<int64_t>& sizes() const { return sizes_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  //! In elements, from the start of the storage.
  int64_t storageOffset() const { return storageOffset_; }
  Device device() const { return device_; }
  bool isCpu() const { return device_.kind == DeviceKind::Cpu; }
  //! True when the storage is refcounted by this tensor and its views.
  bool isOwning() const { return storage_ != nullptr; }
  //! Bytes of the owned allocation; -1 when borrowed.
  int64_t storageBytes() const { return storageBytes_; }
  //! True when both tensors address the same storage (views of one another).
  bool sharesStorageWith(const Tensor& other) const {
    return storageBase_ != nullptr && storageBase_ == other.storageBase_;
  }

  //! Row-major with no gaps; extents of one are ignored, empty tensors are
  //! contiguous.
  bool isContiguous() const;

  //! The address of the first element (the storage offset applied).
  void* data() const {
    return storageBase_ == nullptr ? nullptr : storageBase_ + storageOffset_ * elementSize();
  }
  //! data() as T*; T must have the dtype's element size.
  template <class T>
  T* dataAs() const {
    FL_ASSERT(static_cast<int64_t>(sizeof(T)) == elementSize(),
              "dataAs<T> with sizeof(T) = ", sizeof(T), " on a ", ir::toString(dtype_), " tensor");
    return static_cast<T*>(data());
  }

  //! A view with new sizes, strides and storage offset over the same storage;
  //! for owned storage it must stay inside the allocation.
  Tensor asStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                   int64_t storageOffset) const;
  //! A view with dimensions reordered: result dim i is this tensor's dims[i].
  //! Negative entries count from the end.
  Tensor permute(const std::vector<int64_t>& dims) const;
  //! This tensor when contiguous, else a contiguous copy.
  Tensor contiguous() const;
  //! A contiguous copy that shares nothing.
  Tensor clone() const;
  //! A contiguous copy converted to `dtype` with castElement's rounding; this
  //! tensor itself (shared) when the dtype already matches, as torch's `to`.
  Tensor to(ir::DataType dtype) const;

  //! Sets every element to `value`, rounded to the dtype.
  void fill(double value);
  void zero() { fill(0.0); }

  //! The element at `index` (one entry per dim) as a double; for tests.
  double item(const std::vector<int64_t>& index) const;
  //! Sets the element at `index` to `value`, rounded to the dtype.
  void set(const std::vector<int64_t>& index, double value);

  //! "Tensor(bf16[2, 3], strides=[3, 1], offset=0, cpu)".
  std::string toString() const;

 private:
  Tensor(std::shared_ptr<std::byte> storage, std::byte* storageBase, int64_t storageBytes,
         ir::DataType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
         int64_t storageOffset, Device device);

  int64_t elementSize() const { return ir::sizeInBytes(dtype_); }
  //! Element offset of `index` from data(), after checking it is in bounds.
  int64_t offsetOf(const std::vector<int64_t>& index, const char* what) const;
  void checkCpu(const char* what) const;

  std::shared_ptr<std::byte> storage_;  // null when borrowed or undefined
  std::byte* storageBase_ = nullptr;
  int64_t storageBytes_ = -1;
  ir::DataType dtype_ = ir::DataType::Null;
  std::vector<int64_t> sizes_;
  std::vector<int64_t> strides_;
  int64_t storageOffset_ = 0;
  int64_t numel_ = 0;
  Device device_;
  bool metadataOnly_ = false;
};

//! Calls `visit(offset)` for every element of a (sizes, strides) layout in
//! logical row-major order, with the element's offset from data() in elements.
template <class Visit>
void forEachOffset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                   Visit&& visit) {
  const size_t rank = sizes.size();
  for (int64_t size : sizes) {
    if (size == 0) return;
  }
  if (rank == 0) {
    visit(int64_t{0});
    return;
  }
  const int64_t innerSize = sizes[rank - 1];
  const int64_t innerStride = strides[rank - 1];
  std::vector<int64_t> outerIndex(rank - 1, 0);
  int64_t base = 0;
  while (true) {
    for (int64_t i = 0; i < innerSize; ++i) visit(base + i * innerStride);
    // Advance the odometer over the outer dims.
    size_t d = rank - 1;
    while (d > 0) {
      --d;
      base += strides[d];
      if (++outerIndex[d] < sizes[d]) break;
      base -= strides[d] * sizes[d];
      outerIndex[d] = 0;
      if (d == 0) return;
    }
    if (rank == 1) return;
  }
}

//! A metadata-only tensor (sizes and strides without data, on CUDA device 0):
//! what segmentation and heuristics see of an input.
Tensor metadataOnly(ir::DataType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                    int64_t storageOffset = 0);

//! Copies `from` into `to` element by element (same dtype and sizes; any
//! strides on either side).
void copyInto(const Tensor& from, Tensor& to);

}  // namespace fuserlab::runtime
