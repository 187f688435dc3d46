#include "core/cuda/cuda_memory.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "core/cuda/cuda_error.h"
#include "core/cuda/device_memory_pool.h"
#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

int64_t elementBytes(ir::DataType dtype) { return ir::sizeInBytes(dtype); }

void checkOnDevice(const Tensor& tensor, std::string_view what) {
  FL_ASSERT(tensor.device().kind == DeviceKind::Cuda, what, ": expected a CUDA tensor, found ",
            tensor.toString());
  FL_ASSERT(!tensor.isMetadataOnly(), what, ": ", tensor.toString(), " has no data");
}

}  // namespace

DeviceBuffer::DeviceBuffer(int64_t bytes, int device, std::string_view what)
    : bytes_(bytes), device_(device) {
  FL_ASSERT(bytes >= 0, what, ": negative allocation size ", bytes);
  if (bytes == 0) return;
  data_ = poolAllocate(device, bytes, what);
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      device_(other.device_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    device_ = other.device_;
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (data_ == nullptr) return;
  // Back to the device's pool (no cudaFree, which would synchronize); no
  // exception leaves a destructor.
  poolRelease(device_, data_, bytes_);
  data_ = nullptr;
}

void DeviceBuffer::fill(uint8_t value, std::string_view what) const {
  if (bytes_ == 0) return;
  checkCuda(cudaMemset(data_, value, static_cast<size_t>(bytes_)), "cudaMemset", what);
}

int64_t spanElements(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t span = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    span += (sizes[i] - 1) * strides[i];
  }
  return span;
}

DeviceTensor allocateDevice(ir::DataType dtype, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides, int device, std::string_view what) {
  const int64_t bytes = spanElements(sizes, strides) * elementBytes(dtype);
  auto buffer = std::make_shared<DeviceBuffer>(bytes, device, what);
  DeviceTensor out;
  out.tensor = Tensor::borrow(buffer->data(), dtype, std::move(sizes), std::move(strides), 0,
                              DeviceKind::Cuda, device);
  out.buffer = std::move(buffer);
  return out;
}

DeviceTensor toDevice(const Tensor& host, int device, std::string_view what) {
  FL_ASSERT(host.isCpu() && !host.isMetadataOnly(), what,
            ": toDevice needs a CPU tensor with data, found ", host.toString());
  const int64_t size = elementBytes(host.dtype());
  const int64_t span = spanElements(host.sizes(), host.strides());
  // Keep the offset's alignment class within 256 bytes (cudaMalloc's), not
  // the offset itself: a slice deep into a large tensor needs no more.
  const int64_t offset = host.storageOffset() % (256 / size);
  auto buffer = std::make_shared<DeviceBuffer>((offset + span) * size, device, what);
  if (span > 0) {
    setCudaDevice(device, what);
    checkCuda(cudaMemcpy(static_cast<std::byte*>(buffer->data()) + offset * size, host.data(),
                         static_cast<size_t>(span * size), cudaMemcpyHostToDevice),
              "cudaMemcpy (host to device)", what);
  }
  DeviceTensor out;
  out.tensor = Tensor::borrow(buffer->data(), host.dtype(), host.sizes(), host.strides(),
                              span > 0 ? offset : 0, DeviceKind::Cuda, device);
  out.buffer = std::move(buffer);
  return out;
}

Tensor toHost(const Tensor& device, std::string_view what) {
  if (device.isCpu()) return device.clone();
  checkOnDevice(device, what);
  Tensor host = Tensor::emptyStrided(device.dtype(), device.sizes(), device.strides());
  const int64_t bytes =
      spanElements(device.sizes(), device.strides()) * elementBytes(device.dtype());
  if (bytes == 0) return host;
  setCudaDevice(device.device().index, what);
  checkCuda(
      cudaMemcpy(host.data(), device.data(), static_cast<size_t>(bytes), cudaMemcpyDeviceToHost),
      "cudaMemcpy (device to host)", what);
  return host;
}

void copyToHost(const Tensor& from, Tensor& to, std::string_view what) {
  const Tensor staged = toHost(from, what);
  copyInto(staged, to);
}

void poison(const Tensor& tensor, std::string_view what) {
  checkOnDevice(tensor, what);
  const int64_t bytes =
      spanElements(tensor.sizes(), tensor.strides()) * elementBytes(tensor.dtype());
  if (bytes == 0) return;
  const int value = ir::isFloatingPoint(tensor.dtype()) ? 0xff : 0x7f;
  setCudaDevice(tensor.device().index, what);
  checkCuda(cudaMemset(tensor.data(), value, static_cast<size_t>(bytes)), "cudaMemset (poison)",
            what);
}

void setCudaDevice(int device, std::string_view what) {
  // Every run calls this: the call's name is built only when it failed.
  const cudaError_t status = cudaSetDevice(device);
  if (status != cudaSuccess) {
    checkCuda(status, "cudaSetDevice(" + std::to_string(device) + ")", what);
  }
}

void synchronizeCuda(std::string_view what) {
  checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize", what);
}

}  // namespace fuserlab::runtime
