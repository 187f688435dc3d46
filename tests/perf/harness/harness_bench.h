// The harnesses' timing protocol, `fuserlab-cli bench`'s: an L2 flush (a
// write of twice the L2, then a read of it, so no dirty line is left to
// write back during the timed kernel), the start event, the launch, the end
// event; the median of the samples after 5 warm-ups. And the copy
// bandwidth the ratios are taken against: a 1 GiB device-to-device
// cudaMemcpy, bytes read plus written over the median of 10.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "harness_check.h"

__global__ void flushRead(const uint4* data, long long words, unsigned* sink) {
  unsigned fold = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < words;
       i += (long long)gridDim.x * blockDim.x) {
    const uint4 v = data[i];
    fold ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (fold == 1u) *sink = fold;
}

struct Flush {
  void* buffer = nullptr;
  size_t bytes = 0;
  unsigned* sink = nullptr;
  int blocks = 0;
  int count = 0;
  explicit Flush(const cudaDeviceProp& prop) {
    bytes = 2 * (size_t)prop.l2CacheSize / 16 * 16;
    blocks = prop.multiProcessorCount * 4;
    CHECK(cudaMalloc(&buffer, bytes));
    CHECK(cudaMalloc(&sink, 16));
  }
  void run() {
    CHECK(cudaMemsetAsync(buffer, 1 + (count++ % 255), bytes));
    flushRead<<<blocks, 512>>>(static_cast<const uint4*>(buffer), (long long)(bytes / 16), sink);
    CHECK(cudaGetLastError());
  }
};

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median of `samples` event-timed launches, each after a flush.
static double timeUs(Flush& flush, const std::function<void()>& launch, int samples = 50) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) {
    flush.run();
    launch();
  }
  std::vector<double> us;
  for (int i = 0; i < samples; ++i) {
    flush.run();
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    us.push_back(ms * 1000.0);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return median(us);
}

// Bytes per microsecond of a 1 GiB device-to-device copy (read + written).
static double copyBytesPerUs() {
  const size_t copyBytes = size_t{1} << 30;
  void *src, *dst;
  CHECK(cudaMalloc(&src, copyBytes));
  CHECK(cudaMalloc(&dst, copyBytes));
  CHECK(cudaMemset(src, 1, copyBytes));
  std::vector<double> copyUs;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 12; ++i) {
    CHECK(cudaEventRecord(a));
    CHECK(cudaMemcpyAsync(dst, src, copyBytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (i >= 2) copyUs.push_back(ms * 1000.0);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return 2.0 * copyBytes / median(copyUs);
}
