// Device memory: an RAII allocation on one GPU, and copies of a
// runtime::Tensor between host and device that keep its sizes, strides and
// the alignment class of its storage offset (so a misaligned slice stays
// misaligned on the GPU, and the compiler sees the same layout there).
//
// Invariant: a DeviceTensor's `tensor` is a borrowed CUDA tensor whose every
// addressable element lies inside `buffer` (when the buffer is set); copies of
// a DeviceTensor share the buffer, which is freed with the last of them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor/tensor.h"

namespace fuserlab::runtime {

//! `bytes` of memory on GPU `device` (from the device's caching pool,
//! device_memory_pool.h: 256-byte aligned); given back by the destructor. Zero bytes allocate
//! nothing (data() is null).
class DeviceBuffer {
 public:
  //! `what` names the buffer in errors ("output T3 of segment 1").
  DeviceBuffer(int64_t bytes, int device, std::string_view what);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  void* data() const { return data_; }
  int64_t bytes() const { return bytes_; }
  int device() const { return device_; }

  //! Sets every byte to `value` (cudaMemset).
  void fill(uint8_t value, std::string_view what) const;

 private:
  void release() noexcept;

  void* data_ = nullptr;
  int64_t bytes_ = 0;
  int device_ = 0;
};

//! A tensor on a GPU and the buffer that keeps its memory alive. `buffer` is
//! null when someone else owns the memory (a caller's input), and for
//! scalar outputs, whose `tensor` is a 0-dim CPU tensor.
struct DeviceTensor {
  Tensor tensor;
  std::shared_ptr<DeviceBuffer> buffer;
};

//! Elements from the first to the last addressable one (1 + sum of
//! (size - 1) * stride); 0 when an extent is 0.
int64_t spanElements(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

//! A new device tensor with these sizes and strides (storage offset 0),
//! uninitialised.
DeviceTensor allocateDevice(ir::DataType dtype, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides, int device, std::string_view what);

//! A copy of CPU tensor `host` on GPU `device` with the same sizes and
//! strides; its storage offset is kept modulo 256 bytes, so the data
//! pointer's alignment class is the host tensor's (up to 64 bytes, the host
//! allocator's alignment).
DeviceTensor toDevice(const Tensor& host, int device, std::string_view what);

//! A CPU copy of device tensor `device` with the same sizes and strides
//! (storage offset 0). A CPU tensor is cloned.
Tensor toHost(const Tensor& device, std::string_view what);

//! Copies device tensor `from` into CPU tensor `to` (same dtype and sizes,
//! any strides on either side).
void copyToHost(const Tensor& from, Tensor& to, std::string_view what);

//! Fills every addressable element of device tensor `tensor` with a value
//! no correct kernel leaves behind: all-ones bytes for floating dtypes (a NaN
//! in every IEEE format), 0x7f bytes otherwise.
void poison(const Tensor& tensor, std::string_view what);

//! Sets the current device (cudaSetDevice), checked.
void setCudaDevice(int device, std::string_view what);

//! Waits for all work on the current device (cudaDeviceSynchronize), checked:
//! an asynchronous kernel fault surfaces here, named by `what`.
void synchronizeCuda(std::string_view what);

}  // namespace fuserlab::runtime
