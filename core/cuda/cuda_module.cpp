#include "core/cuda/cuda_module.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "core/cuda/cuda_error.h"
#include "core/cuda/driver_launch.h"
#include "core/ir/error.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::runtime {
namespace {

constexpr int64_t kDefaultDynamicSharedMemoryBytes = 48 * 1024;

std::string dims(const std::array<int64_t, 3>& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         ")";
}

}  // namespace

void CudaKernel::allowDynamicSharedMemory(int64_t bytes, int device, std::string_view what) const {
  if (bytes <= kDefaultDynamicSharedMemoryBytes) return;
  checkCuda(
      cudaKernelSetAttributeForDevice(static_cast<cudaKernel_t>(handle_),
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(bytes), device),
      "cudaKernelSetAttributeForDevice(MaxDynamicSharedMemorySize = " + std::to_string(bytes) + ")",
      std::string(what) + ", kernel " + name_);
}

void CudaKernel::allowClusters(const codegen::LaunchConfig& config, int device,
                               std::string_view what) const {
  const auto& c = config.cluster;
  const int64_t blocks = c[0] * c[1] * c[2];
  if (blocks <= 1) return;
  const cudaKernel_t kernel = static_cast<cudaKernel_t>(handle_);
  const std::string context = std::string(what) + ", kernel " + name_ + " with clusters " + dims(c);
  if (blocks > scheduler::kPortableClusterBlocks) {
    checkCuda(cudaKernelSetAttributeForDevice(
                  kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1, device),
              "cudaKernelSetAttributeForDevice(NonPortableClusterSizeAllowed)", context);
  }
  cudaLaunchConfig_t launch{};
  launch.gridDim =
      dim3(static_cast<unsigned>(config.grid[0]), static_cast<unsigned>(config.grid[1]),
           static_cast<unsigned>(config.grid[2]));
  launch.blockDim =
      dim3(static_cast<unsigned>(config.block[0]), static_cast<unsigned>(config.block[1]),
           static_cast<unsigned>(config.block[2]));
  launch.dynamicSmemBytes = static_cast<size_t>(config.dynamicSharedMemoryBytes);
  int clusters = 0;
  checkCuda(
      cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(kernel), &launch),
      "cudaOccupancyMaxActiveClusters", context);
  if (clusters < 1) {
    throw CudaError(static_cast<int>(cudaErrorInvalidClusterSize),
                    context + ": no cluster of " + std::to_string(blocks) + " blocks of " +
                        dims(config.block) + " threads and " +
                        std::to_string(config.dynamicSharedMemoryBytes) +
                        " bytes of dynamic shared memory fits this GPU at once "
                        "(cudaOccupancyMaxActiveClusters is 0); params with "
                        "cluster_reduction false combine through global memory instead");
  }
}

void* CudaKernel::function(std::string_view what) const {
  FL_ASSERT(valid(), what, ": the function of an unloaded kernel");
  void* const current = driver::currentContext();
  if (function_ == nullptr || current != context_) {
    function_ = driver::kernelFunction(handle_, std::string(what) + ", kernel " + name_);
    context_ = current;
  }
  return function_;
}

driver::LaunchShape launchShape(const codegen::LaunchConfig& config) {
  driver::LaunchShape shape;
  for (int i = 0; i < 3; ++i) {
    shape.grid[i] = static_cast<unsigned>(config.grid[i]);
    shape.block[i] = static_cast<unsigned>(config.block[i]);
  }
  shape.dynamicSharedMemoryBytes = static_cast<unsigned>(config.dynamicSharedMemoryBytes);
  return shape;
}

void CudaKernel::launch(const codegen::LaunchConfig& config, void** args, std::string_view what,
                        bool afterKernel, void* stream) const {
  // The error context is built only when something fails: a cached run's
  // host time is mostly this function.
  auto where = [&] {
    return std::string(what) + ", kernel " + name_ + " with grid " + dims(config.grid) +
           " and block " + dims(config.block);
  };
  FL_ASSERT(valid(), what, ": launch of an unloaded kernel");
  const auto& g = config.grid;
  const auto& b = config.block;
  FL_ASSERT(
      g[0] >= 1 && g[0] <= 0x7fffffff && g[1] >= 1 && g[1] <= 65535 && g[2] >= 1 && g[2] <= 65535,
      where(), ": the grid is outside CUDA's limits");
  FL_ASSERT(b[0] >= 1 && b[1] >= 1 && b[2] >= 1 && b[0] * b[1] * b[2] <= 1024, where(),
            ": the block is outside CUDA's limits");
  void* const current = driver::currentContext();
  if (function_ == nullptr || current != context_) {
    function_ = driver::kernelFunction(handle_, where());
    context_ = current;
  }
  driver::LaunchShape shape = launchShape(config);
  shape.afterKernel = afterKernel;
  const int result = driver::launch(function_, shape, args, stream);
  if (result != 0) {
    throw CudaError(result, where() + ": cuLaunchKernelEx" +
                                (afterKernel ? " (programmatic dependent)" : "") +
                                " failed: " + driver::errorText(result));
  }
}

CudaModule::CudaModule(std::string_view image, std::string_view what) {
  FL_ASSERT(!image.empty(), what, ": an empty kernel image");
  // cudaLibraryLoadData reads a NUL-terminated string for PTX; a cubin is
  // self-delimiting. A copy with a terminator serves both.
  std::string data(image);
  cudaLibrary_t library = nullptr;
  checkCuda(cudaLibraryLoadData(&library, data.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            "cudaLibraryLoadData", what);
  library_ = library;
}

CudaModule::~CudaModule() {
  if (library_ != nullptr &&
      cudaLibraryUnload(static_cast<cudaLibrary_t>(library_)) != cudaSuccess) {
    (void)cudaGetLastError();  // no exception leaves a destructor
  }
}

CudaKernel CudaModule::kernel(const std::string& name, std::string_view what) const {
  cudaKernel_t kernel = nullptr;
  checkCuda(cudaLibraryGetKernel(&kernel, static_cast<cudaLibrary_t>(library_), name.c_str()),
            "cudaLibraryGetKernel(\"" + name + "\")", what);
  return CudaKernel(kernel, name);
}

void KernelArguments::addBytes(const void* bytes, size_t count) {
  std::vector<uint64_t> block((count + 7) / 8, 0);
  std::memcpy(block.data(), bytes, count);
  blocks_.push_back(std::move(block));
  holdsPointer_.push_back(false);
}

void KernelArguments::addTensor(void* data, const std::vector<int64_t>& sizes,
                                const std::vector<int64_t>& strides) {
  FL_ASSERT(sizes.size() == strides.size(), "a tensor argument with ", sizes.size(), " sizes and ",
            strides.size(), " strides");
  std::vector<uint64_t> block(1 + 2 * sizes.size());
  block[0] = reinterpret_cast<uintptr_t>(data);
  for (size_t i = 0; i < sizes.size(); ++i) {
    block[1 + i] = static_cast<uint64_t>(sizes[i]);
    block[1 + sizes.size() + i] = static_cast<uint64_t>(strides[i]);
  }
  blocks_.push_back(std::move(block));
  holdsPointer_.push_back(true);
}

void KernelArguments::addScalar(ir::DataType dtype, const ir::ScalarValue& value) {
  auto asDouble = [&]() -> double {
    if (const auto* d = std::get_if<double>(&value)) return *d;
    if (const auto* i = std::get_if<int64_t>(&value)) return double(*i);
    if (const auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
    FL_ASSERT(false, "a scalar kernel argument without a value");
  };
  auto asInt = [&]() -> int64_t {
    if (const auto* i = std::get_if<int64_t>(&value)) return *i;
    if (const auto* b = std::get_if<bool>(&value)) return *b ? 1 : 0;
    return static_cast<int64_t>(asDouble());
  };
  switch (dtype) {
    case ir::DataType::Bool: {
      const bool v = asInt() != 0;
      addBytes(&v, sizeof(v));
      return;
    }
    case ir::DataType::Int32: {
      const int32_t v = static_cast<int32_t>(asInt());
      addBytes(&v, sizeof(v));
      return;
    }
    case ir::DataType::Int: {
      const int64_t v = asInt();
      addBytes(&v, sizeof(v));
      return;
    }
    case ir::DataType::Half:
    case ir::DataType::BFloat16:
    case ir::DataType::Float: {
      const float v = static_cast<float>(asDouble());
      addBytes(&v, sizeof(v));
      return;
    }
    case ir::DataType::Double: {
      const double v = asDouble();
      addBytes(&v, sizeof(v));
      return;
    }
    case ir::DataType::Null: break;
  }
  FL_ASSERT(false, "a kernel scalar argument of dtype ", ir::toString(dtype));
}

void KernelArguments::addPointer(void* pointer) {
  const uint64_t v = reinterpret_cast<uintptr_t>(pointer);
  addBytes(&v, sizeof(v));
  holdsPointer_.back() = true;
}

void KernelArguments::setPointer(size_t index, void* pointer) {
  FL_ASSERT(index < blocks_.size() && holdsPointer_[index], "kernel argument ", index, " of ",
            blocks_.size(), " has no pointer to set");
  blocks_[index][0] = reinterpret_cast<uintptr_t>(pointer);
}

void* KernelArguments::pointerAt(size_t index) const {
  FL_ASSERT(index < blocks_.size() && holdsPointer_[index], "kernel argument ", index, " of ",
            blocks_.size(), " has no pointer");
  return reinterpret_cast<void*>(static_cast<uintptr_t>(blocks_[index][0]));
}

void** KernelArguments::pointers() {
  pointers_.clear();
  for (auto& block : blocks_) pointers_.push_back(block.data());
  return pointers_.data();
}

}  // namespace fuserlab::runtime
