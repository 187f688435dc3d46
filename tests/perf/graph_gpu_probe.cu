// GPU time of the same small kernels launched one by one and as a CUDA
// graph (issue 6: a replayed run queues its kernels as one graph; `bench`
// timed small examples 0 to 0.4 us slower that way). Not part of the build:
// a probe for docs/performance.md.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -cudart static -o graph_gpu_probe \
//        tests/perf/graph_gpu_probe.cu
//   ./graph_gpu_probe [rounds] [float4 elements]
//
// Each sample queues a 30 us spin kernel first (so the launches are queued
// while the GPU is busy, as `bench` queues them behind its L2 flush), then
// an event, the launches, an event; the time between the two events is the
// sample. Variants run in interleaved rounds in one process.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include "probe_common.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

// As FuserLab's kernels open: wait for the grids before (a no-op unless
// launched as a programmatic dependent).
extern "C" __global__ void copy_kernel(const float4* in, float4* out, long n) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const long i = blockIdx.x * long(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i];
}

extern "C" __global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

struct Variant {
  std::string name;
  CUstream stream;
  std::function<void(CUstream)> launch;
  std::vector<float> samples;
};

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  const long n = argc > 2 ? std::atol(argv[2]) : 262144;  // float4s: 4 MiB
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context");

  auto launchEx = entry<PFN_cuLaunchKernelEx_v11060>("cuLaunchKernelEx", 12000);
  auto getFunction = entry<PFN_cuKernelGetFunction_v12000>("cuKernelGetFunction", 12000);
  auto graphCreate = entry<PFN_cuGraphCreate_v10000>("cuGraphCreate", 10000);
  auto addKernel = entry<PFN_cuGraphAddKernelNode_v12000>("cuGraphAddKernelNode", 12000);
  auto addEdges = entry<PFN_cuGraphAddDependencies_v12030>("cuGraphAddDependencies", 12030);
  auto instantiate =
      entry<PFN_cuGraphInstantiateWithFlags_v11040>("cuGraphInstantiateWithFlags", 11040);
  auto graphLaunch = entry<PFN_cuGraphLaunch_v10000>("cuGraphLaunch", 10000);

  cudaKernel_t kernel = nullptr;
  check(cudaGetKernel(&kernel, copy_kernel), "cudaGetKernel");
  CUfunction copy = nullptr;
  check(getFunction(&copy, reinterpret_cast<CUkernel>(kernel)), "cuKernelGetFunction");

  float4 *a = nullptr, *b = nullptr, *c = nullptr;
  check(cudaMalloc(&a, n * sizeof(float4)), "malloc");
  check(cudaMalloc(&b, n * sizeof(float4)), "malloc");
  check(cudaMalloc(&c, n * sizeof(float4)), "malloc");
  check(cudaMemset(a, 1, n * sizeof(float4)), "memset");
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>((n + threads - 1) / threads);
  void* first[] = {&a, &b, const_cast<long*>(&n)};
  void* second[] = {&b, &c, const_cast<long*>(&n)};

  auto direct = [&](CUstream s, void** args, bool pdl) {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config{};
    config.gridDimX = blocks;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = threads;
    config.blockDimY = config.blockDimZ = 1;
    config.hStream = s;
    config.attrs = pdl ? &attribute : nullptr;
    config.numAttrs = pdl ? 1 : 0;
    check(launchEx(&config, copy, args, nullptr), "cuLaunchKernelEx");
  };
  // A chain of `kernels` copies (a->b, then b->c, c->b, ...): full edges,
  // programmatic edges (the next kernel may start once every block of the
  // one before has exited or triggered), or launch-order edges (once every
  // block of the one before has started). The kernels' griddepcontrol.wait
  // keeps the chain correct either way.
  enum Edge { kFull, kProgrammatic, kLaunchOrder };
  void* third[] = {&c, &b, const_cast<long*>(&n)};
  auto graph = [&](int kernels, Edge kind) {
    const bool programmatic = kind != kFull;
    CUgraph g = nullptr;
    check(graphCreate(&g, 0), "cuGraphCreate");
    CUgraphNode previous = nullptr;
    for (int k = 0; k < kernels; ++k) {
      CUDA_KERNEL_NODE_PARAMS p{};
      p.func = copy;
      p.gridDimX = blocks;
      p.gridDimY = p.gridDimZ = 1;
      p.blockDimX = threads;
      p.blockDimY = p.blockDimZ = 1;
      p.kernelParams = k == 0 ? first : (k % 2 == 1 ? second : third);
      CUgraphNode node = nullptr;
      const bool full = previous != nullptr && !programmatic;
      check(addKernel(&node, g, full ? &previous : nullptr, full ? 1 : 0, &p), "add node");
      if (previous != nullptr && programmatic) {
        CUgraphEdgeData edge{};
        edge.from_port = kind == kLaunchOrder ? CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER
                                              : CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
        edge.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
        check(addEdges(g, &previous, &node, &edge, 1), "programmatic edge");
      }
      previous = node;
    }
    CUgraphExec exec = nullptr;
    check(instantiate(&exec, g, 0), "instantiate");
    return exec;
  };

  cudaStream_t nonBlocking = nullptr;
  check(cudaStreamCreateWithFlags(&nonBlocking, cudaStreamNonBlocking), "stream");
  const CUstream legacy = nullptr;
  const auto nb = reinterpret_cast<CUstream>(nonBlocking);
  CUgraphExec one = graph(1, kFull);
  CUgraphExec twoProgrammatic = graph(2, kProgrammatic);
  CUgraphExec twoFull = graph(2, kFull);
  CUgraphExec twoLaunchOrder = graph(2, kLaunchOrder);
  CUgraphExec fourProgrammatic = graph(4, kProgrammatic);
  CUgraphExec fourLaunchOrder = graph(4, kLaunchOrder);

  std::vector<Variant> variants;
  variants.push_back(
      {"1 kernel, legacy stream, launched", legacy, [&](CUstream s) { direct(s, first, false); }});
  variants.push_back({"1 kernel, legacy stream, graph", legacy,
                      [&](CUstream s) { check(graphLaunch(one, s), "graph"); }});
  variants.push_back({"1 kernel, non-blocking stream, launched", nb,
                      [&](CUstream s) { direct(s, first, false); }});
  variants.push_back({"1 kernel, non-blocking stream, graph", nb,
                      [&](CUstream s) { check(graphLaunch(one, s), "graph"); }});
  variants.push_back({"2 kernels, legacy, launched, 2nd PDL", legacy, [&](CUstream s) {
                        direct(s, first, false);
                        direct(s, second, true);
                      }});
  variants.push_back({"2 kernels, legacy, launched, plain", legacy, [&](CUstream s) {
                        direct(s, first, false);
                        direct(s, second, false);
                      }});
  variants.push_back({"2 kernels, legacy, graph, programmatic edge", legacy,
                      [&](CUstream s) { check(graphLaunch(twoProgrammatic, s), "graph"); }});
  variants.push_back({"2 kernels, legacy, graph, full edge", legacy,
                      [&](CUstream s) { check(graphLaunch(twoFull, s), "graph"); }});
  variants.push_back({"2 kernels, non-blocking, graph, programmatic", nb,
                      [&](CUstream s) { check(graphLaunch(twoProgrammatic, s), "graph"); }});
  variants.push_back({"2 kernels, legacy, graph, launch-order edge", legacy,
                      [&](CUstream s) { check(graphLaunch(twoLaunchOrder, s), "graph"); }});
  variants.push_back({"4 kernels, legacy, graph, programmatic edges", legacy,
                      [&](CUstream s) { check(graphLaunch(fourProgrammatic, s), "graph"); }});
  variants.push_back({"4 kernels, legacy, graph, launch-order edges", legacy,
                      [&](CUstream s) { check(graphLaunch(fourLaunchOrder, s), "graph"); }});
  variants.push_back({"4 kernels, legacy, launched, PDL", legacy, [&](CUstream s) {
                        direct(s, first, false);
                        direct(s, second, true);
                        direct(s, third, true);
                        direct(s, second, true);
                      }});

  cudaEvent_t start = nullptr, end = nullptr;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&end), "event");
  auto sample = [&](Variant& v, bool keep) {
    const auto s = reinterpret_cast<cudaStream_t>(v.stream);
    spin_kernel<<<1, 1, 0, s>>>(60000);  // ~30 us at 1.98 GHz
    check(cudaEventRecord(start, s), "record");
    v.launch(v.stream);
    check(cudaEventRecord(end, s), "record");
    check(cudaEventSynchronize(end), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, end), "elapsed");
    if (keep) v.samples.push_back(ms * 1000.0f);
  };
  for (auto& v : variants) {
    for (int i = 0; i < 10; ++i) sample(v, false);
  }
  for (int r = 0; r < rounds; ++r) {
    for (auto& v : variants) {
      for (int i = 0; i < 25; ++i) sample(v, true);
    }
  }
  check(cudaDeviceSynchronize(), "sync");
  // The chains are still right with launch-order edges: c ends as a.
  int wrong = 0;
  for (CUgraphExec exec : {twoLaunchOrder, fourLaunchOrder}) {
    for (int trial = 0; trial < 20; ++trial) {
      const int pattern = 2 + trial;
      check(cudaMemset(a, pattern, n * sizeof(float4)), "memset");
      check(cudaMemset(b, 0, n * sizeof(float4)), "memset");
      check(cudaMemset(c, 0, n * sizeof(float4)), "memset");
      spin_kernel<<<1, 1>>>(60000);
      check(graphLaunch(exec, legacy), "graph");
      std::vector<unsigned char> host(n * sizeof(float4));
      check(cudaMemcpy(host.data(), c, host.size(), cudaMemcpyDeviceToHost), "copy back");
      if (std::count(host.begin(), host.end(), static_cast<unsigned char>(pattern)) !=
          static_cast<long>(host.size())) {
        ++wrong;
      }
    }
  }
  std::printf("launch-order chains checked 40 times: %d wrong\n", wrong);
  std::printf("%ld float4 per copy (%.1f MiB read + written), %d rounds x 25 samples\n", n,
              2.0 * n * 16 / (1 << 20), rounds);
  std::printf("%-48s %8s %8s %8s\n", "variant", "p20 us", "median", "p80");
  for (auto& v : variants) {
    std::sort(v.samples.begin(), v.samples.end());
    const size_t m = v.samples.size();
    std::printf("%-48s %8.2f %8.2f %8.2f\n", v.name.c_str(), v.samples[m / 5], v.samples[m / 2],
                v.samples[m * 4 / 5]);
  }
  return 0;
}
