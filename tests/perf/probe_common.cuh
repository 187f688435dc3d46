// What the launch probes (launch_probe.cu, graph_gpu_probe.cu) share: a
// failed CUDA call ends the probe with its name, and driver calls come from
// cudaGetDriverEntryPointByVersion at the ABI version their signature is
// from (nothing links libcuda).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

inline void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s: CUresult %d\n", what, int(r));
    std::exit(1);
  }
}

template <class Fn>
Fn entry(const char* name, unsigned version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &found), name);
  if (found != cudaDriverEntryPointSuccess) {
    std::fprintf(stderr, "the driver has no %s (ABI %u)\n", name, version);
    std::exit(1);
  }
  return reinterpret_cast<Fn>(p);
}
