#include "measure/l2_flush.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "core/codegen/kernel.h"
#include "core/cuda/cuda_error.h"
#include "core/cuda/nvrtc_compiler.h"

namespace fuserlab::runtime {
namespace {

constexpr const char* kReadKernel = "fuserlab_l2_flush_read";
constexpr int64_t kThreads = 512;

// Each thread folds 16-byte words of the buffer into one value; the buffer
// holds one byte value repeated, so the fold of any whole number of words
// is zero and the store (when it is one) never happens.
codegen::GeneratedKernel readKernel() {
  codegen::GeneratedKernel kernel;
  kernel.name = kReadKernel;
  kernel.source = std::string("extern \"C\" __global__ void ") + kReadKernel +
                  "(const uint4* data, long long words, unsigned* sink) {\n"
                  "  unsigned fold = 0;\n"
                  "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;"
                  " i < words; i += (long long)gridDim.x * blockDim.x) {\n"
                  "    const uint4 v = data[i];\n"
                  "    fold ^= v.x ^ v.y ^ v.z ^ v.w;\n"
                  "  }\n"
                  "  if (fold == 1u) *sink = fold;\n"
                  "}\n";
  return kernel;
}

}  // namespace

L2Flush::L2Flush(const scheduler::DeviceSpec& spec, int device)
    : buffer_(2 * (spec.l2CacheBytes > 0 ? spec.l2CacheBytes : int64_t{128} << 20) / 16 * 16,
              device, "the L2 flush buffer"),
      sink_(16, device, "the L2 flush's sink word"),
      blocks_(std::max(1, spec.smCount) * 4) {
  const NvrtcOutput compiled = compileWithNvrtc(readKernel(), spec.computeCapability());
  module_ = std::make_unique<CudaModule>(
      std::string_view(compiled.cubin.data(), compiled.cubin.size()), "the L2 flush");
  read_ = module_->kernel(kReadKernel, "the L2 flush");
}

L2Flush::~L2Flush() = default;

void L2Flush::enqueue() {
  // A different byte each time (1 to 255), so no layer can skip an
  // unchanged write.
  const int value = 1 + (count_++ % 255);
  checkCuda(cudaMemsetAsync(buffer_.data(), value, static_cast<size_t>(buffer_.bytes()), nullptr),
            "cudaMemsetAsync", "flushing L2 before a benchmark sample");
  const void* data = buffer_.data();
  long long words = buffer_.bytes() / 16;
  void* sink = sink_.data();
  void* args[] = {&data, &words, &sink};
  codegen::LaunchConfig config;
  config.grid = {blocks_, 1, 1};
  config.block = {kThreads, 1, 1};
  read_.launch(config, args, "the L2 flush's read");
}

}  // namespace fuserlab::runtime
