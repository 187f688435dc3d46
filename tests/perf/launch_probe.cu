// Host cost of one kernel launch, by the ways a launch can be made
// (issue 6: a cached single-kernel run should cost at most 5 us of host
// time). Not part of the build: a probe for docs/performance.md.
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -cudart static -o launch_probe \
//        tests/perf/launch_probe.cu
//   ./launch_probe [rounds] [spin|yield|block]
//
// Every variant times one launch the way `fuserlab-cli bench` does: the GPU
// idle (synchronized), a clock read, the launch call, a clock read. Variants
// run in interleaved rounds in one process, so the host's speed (which moves
// from process to process on a KVM guest) is shared by all of them; the
// ratios between variants are the result.
#include <cuda.h>
#include <cuda_runtime.h>
#include "probe_common.cuh"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

struct View2 {
  float* data;
  int64_t sizes[2];
  int64_t strides[2];
};
struct View1 {
  float* data;
  int64_t sizes[1];
  int64_t strides[1];
};

// The shape of a FuserLab reduction kernel's parameters; the body writes
// only when handed a null output (never), so the GPU time stays minimal.
extern "C" __global__ void views_kernel(View2 in, View1 out, View1 other) {
  if (out.data == nullptr && threadIdx.x == 0) other.data[blockIdx.x] = in.data[0];
}

extern "C" __global__ void pointers_kernel(const float* in, float* out, float* other) {
  if (out == nullptr && threadIdx.x == 0) other[blockIdx.x] = in[0];
}

using Clock = std::chrono::steady_clock;

using LaunchExFn = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);
using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void**, void**);
using GetFunctionFn = CUresult (*)(CUfunction*, CUkernel);
using GraphLaunchFn = CUresult (*)(CUgraphExec, CUstream);
using ExecSetParamsFn = CUresult (*)(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*);

struct Variant {
  std::string name;
  std::function<void()> sync;    // before the timed call, untimed
  std::function<void()> launch;  // the timed call(s)
  int launchesPerCall = 1;
  std::vector<double> samples;  // us per launch
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::string schedule = argc > 2 ? argv[2] : "auto";
  if (schedule == "spin") check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "flags");
  if (schedule == "yield") check(cudaSetDeviceFlags(cudaDeviceScheduleYield), "flags");
  if (schedule == "block") check(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), "flags");
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "context");

  auto launchEx = entry<LaunchExFn>("cuLaunchKernelEx", 12000);
  auto launchPlain = entry<LaunchFn>("cuLaunchKernel", 12000);
  auto getFunction = entry<GetFunctionFn>("cuKernelGetFunction", 12000);
  auto graphLaunch = entry<GraphLaunchFn>("cuGraphLaunch", 12000);
  auto execSetParams = entry<ExecSetParamsFn>("cuGraphExecKernelNodeSetParams", 12000);

  cudaKernel_t viewsK = nullptr, pointersK = nullptr;
  check(cudaGetKernel(&viewsK, views_kernel), "cudaGetKernel");
  check(cudaGetKernel(&pointersK, pointers_kernel), "cudaGetKernel");
  CUfunction viewsF = nullptr, pointersF = nullptr;
  check(getFunction(&viewsF, reinterpret_cast<CUkernel>(viewsK)), "cuKernelGetFunction");
  check(getFunction(&pointersF, reinterpret_cast<CUkernel>(pointersK)), "cuKernelGetFunction");

  float* buffer = nullptr;
  check(cudaMalloc(&buffer, 1 << 20), "cudaMalloc");
  View2 in{buffer, {2048, 1023}, {1023, 1}};
  View1 out{buffer + 4096, {2048}, {1}};
  View1 other{buffer + 8192, {2048}, {1}};
  void* viewArgs[] = {&in, &out, &other};
  const float* pin = buffer;
  float* pout = buffer + 4096;
  float* pother = buffer + 8192;
  void* pointerArgs[] = {&pin, &pout, &pother};

  cudaStream_t nonBlocking = nullptr, blocking = nullptr;
  check(cudaStreamCreateWithFlags(&nonBlocking, cudaStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&blocking, cudaStreamDefault), "stream");
  cudaEvent_t event = nullptr;
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "event");

  auto config = [&](CUstream stream, bool pdl, CUlaunchAttribute* attribute) {
    CUlaunchConfig c{};
    c.gridDimX = 2048;
    c.gridDimY = 1;
    c.gridDimZ = 1;
    c.blockDimX = 128;
    c.blockDimY = 1;
    c.blockDimZ = 1;
    c.hStream = stream;
    if (pdl) {
      attribute->id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attribute->value.programmaticStreamSerializationAllowed = 1;
      c.attrs = attribute;
      c.numAttrs = 1;
    }
    return c;
  };
  auto deviceSync = [] { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); };
  auto streamSync = [](cudaStream_t s) {
    return [s] { check(cudaStreamSynchronize(s), "cudaStreamSynchronize"); };
  };

  // A one-kernel graph on the non-blocking stream.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t graphExec = nullptr;
  check(cudaStreamBeginCapture(nonBlocking, cudaStreamCaptureModeThreadLocal), "capture");
  {
    CUlaunchConfig c = config(reinterpret_cast<CUstream>(nonBlocking), false, nullptr);
    check(launchEx(&c, viewsF, viewArgs, nullptr), "captured launch");
  }
  check(cudaStreamEndCapture(nonBlocking, &graph), "end capture");
  check(cudaGraphInstantiate(&graphExec, graph, 0), "instantiate");

  // Graphs built node by node (no capture): one kernel, and a chain of three.
  auto nodeParams = [&](void** args) {
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = viewsF;
    p.gridDimX = 2048;
    p.gridDimY = 1;
    p.gridDimZ = 1;
    p.blockDimX = 128;
    p.blockDimY = 1;
    p.blockDimZ = 1;
    p.kernelParams = args;
    return p;
  };
  auto buildChain = [&](int n, std::vector<CUgraphNode>& nodes) {
    cudaGraph_t g = nullptr;
    check(cudaGraphCreate(&g, 0), "cudaGraphCreate");
    nodes.clear();
    for (int i = 0; i < n; ++i) {
      cudaGraphNode_t node = nullptr;
      cudaKernelNodeParams rp{};
      rp.func = reinterpret_cast<void*>(views_kernel);
      rp.gridDim = dim3(2048);
      rp.blockDim = dim3(128);
      rp.kernelParams = viewArgs;
      cudaGraphNode_t* deps =
          nodes.empty() ? nullptr : reinterpret_cast<cudaGraphNode_t*>(&nodes.back());
      check(cudaGraphAddKernelNode(&node, g, deps, nodes.empty() ? 0 : 1, &rp), "add node");
      nodes.push_back(reinterpret_cast<CUgraphNode>(node));
    }
    cudaGraphExec_t e = nullptr;
    check(cudaGraphInstantiate(&e, g, 0), "instantiate chain");
    return reinterpret_cast<CUgraphExec>(e);
  };
  std::vector<CUgraphNode> oneNodes, threeNodes;
  CUgraphExec oneExec = buildChain(1, oneNodes);
  CUgraphExec threeExec = buildChain(3, threeNodes);
  View2 in2{buffer + 16384, {2048, 1023}, {1023, 1}};
  View1 out2{buffer + 20480, {2048}, {1}};
  View1 other2{buffer + 24576, {2048}, {1}};
  void* viewArgs2[] = {&in2, &out2, &other2};
  int flip = 0;

  std::vector<Variant> variants;
  auto ex = [&](CUstream stream, bool pdl, CUfunction f, void** args) {
    return [=] {
      CUlaunchAttribute attribute{};
      CUlaunchConfig c = config(stream, pdl, &attribute);
      check(launchEx(&c, f, args, nullptr), "cuLaunchKernelEx");
    };
  };
  variants.push_back({"legacy stream, cuLaunchKernelEx, views (as FuserLab)", deviceSync,
                      ex(nullptr, false, viewsF, viewArgs)});
  variants.push_back({"legacy stream, cuLaunchKernelEx + PDL attribute", deviceSync,
                      ex(nullptr, true, viewsF, viewArgs)});
  variants.push_back(
      {"legacy stream, cuLaunchKernel", deviceSync, [&] {
         check(launchPlain(viewsF, 2048, 1, 1, 128, 1, 1, 0, nullptr, viewArgs, nullptr),
               "cuLaunchKernel");
       }});
  variants.push_back({"legacy stream, cudaLaunchKernel (runtime)", deviceSync, [&] {
                        check(cudaLaunchKernel(reinterpret_cast<const void*>(views_kernel),
                                               dim3(2048), dim3(128), viewArgs, 0, nullptr),
                              "cudaLaunchKernel");
                      }});
  variants.push_back(
      {"legacy stream, 3 pointers", deviceSync, ex(nullptr, false, pointersF, pointerArgs)});
  variants.push_back(
      {"legacy stream, stream sync", streamSync(nullptr), ex(nullptr, false, viewsF, viewArgs)});
  variants.push_back({"legacy stream, event sync",
                      [&] {
                        check(cudaEventRecord(event, nullptr), "record");
                        check(cudaEventSynchronize(event), "event sync");
                      },
                      ex(nullptr, false, viewsF, viewArgs)});
  variants.push_back({"blocking created stream", streamSync(blocking),
                      ex(reinterpret_cast<CUstream>(blocking), false, viewsF, viewArgs)});
  variants.push_back({"non-blocking stream", streamSync(nonBlocking),
                      ex(reinterpret_cast<CUstream>(nonBlocking), false, viewsF, viewArgs)});
  variants.push_back({"non-blocking stream, device sync", deviceSync,
                      ex(reinterpret_cast<CUstream>(nonBlocking), false, viewsF, viewArgs)});
  variants.push_back(
      {"per-thread default stream", deviceSync, ex(CU_STREAM_PER_THREAD, false, viewsF, viewArgs)});
  variants.push_back({"graph of one kernel, non-blocking stream", streamSync(nonBlocking), [&] {
                        check(graphLaunch(reinterpret_cast<CUgraphExec>(graphExec),
                                          reinterpret_cast<CUstream>(nonBlocking)),
                              "cuGraphLaunch");
                      }});
  {
    auto one = ex(nullptr, false, viewsF, viewArgs);
    Variant v{"legacy stream, 8 back to back (per launch)", deviceSync, [one] {
                for (int i = 0; i < 8; ++i) one();
              }};
    v.launchesPerCall = 8;
    variants.push_back(v);
  }
  {
    auto one = ex(reinterpret_cast<CUstream>(nonBlocking), false, viewsF, viewArgs);
    Variant v{"non-blocking stream, 8 back to back (per launch)", streamSync(nonBlocking), [one] {
                for (int i = 0; i < 8; ++i) one();
              }};
    v.launchesPerCall = 8;
    variants.push_back(v);
  }
  variants.push_back({"graph of one kernel, legacy stream", deviceSync,
                      [&] { check(graphLaunch(oneExec, nullptr), "cuGraphLaunch"); }});
  variants.push_back({"graph of one kernel + set params (new pointers)", deviceSync, [&] {
                        flip ^= 1;
                        CUDA_KERNEL_NODE_PARAMS p = nodeParams(flip ? viewArgs2 : viewArgs);
                        check(execSetParams(oneExec, oneNodes[0], &p), "set params");
                        check(graphLaunch(oneExec, nullptr), "cuGraphLaunch");
                      }});
  variants.push_back({"graph of 3 kernels, legacy stream (per call)", deviceSync,
                      [&] { check(graphLaunch(threeExec, nullptr), "cuGraphLaunch"); }});
  variants.push_back({"graph of 3 kernels + 3 set params (per call)", deviceSync, [&] {
                        flip ^= 1;
                        CUDA_KERNEL_NODE_PARAMS p = nodeParams(flip ? viewArgs2 : viewArgs);
                        for (CUgraphNode n : threeNodes)
                          check(execSetParams(threeExec, n, &p), "set");
                        check(graphLaunch(threeExec, nullptr), "cuGraphLaunch");
                      }});
  {
    auto one = ex(nullptr, false, viewsF, viewArgs);
    variants.push_back({"3 launches, legacy stream (per call)", deviceSync, [one] {
                          for (int i = 0; i < 3; ++i) one();
                        }});
  }
  variants.push_back({"non-blocking stream + PDL attribute", streamSync(nonBlocking),
                      ex(reinterpret_cast<CUstream>(nonBlocking), true, viewsF, viewArgs)});
  {
    Variant v{"clock read alone", deviceSync, [] {}};
    variants.push_back(v);
  }

  // Warm every path.
  for (auto& v : variants) {
    for (int i = 0; i < 20; ++i) {
      v.sync();
      v.launch();
    }
  }
  deviceSync();
  const int perRound = 100;
  for (int r = 0; r < rounds; ++r) {
    for (auto& v : variants) {
      for (int i = 0; i < perRound; ++i) {
        v.sync();
        const auto t0 = Clock::now();
        v.launch();
        const auto t1 = Clock::now();
        v.samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() /
                            v.launchesPerCall);
      }
    }
  }
  deviceSync();
  check(cudaGetLastError(), "after the probe");

  std::printf("schedule %s, %d rounds x %d samples, grid 2048 x 128\n", schedule.c_str(), rounds,
              perRound);
  std::printf("%-56s %8s %8s %8s\n", "variant", "p20 us", "median", "p80");
  for (const auto& v : variants) {
    std::printf("%-56s %8.2f %8.2f %8.2f\n", v.name.c_str(), quantile(v.samples, 0.2),
                median(v.samples), quantile(v.samples, 0.8));
  }
  return 0;
}
