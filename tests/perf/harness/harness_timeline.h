// A block-by-block timeline of a launch (col_sum_variants --timeline): a
// traced kernel's thread (0, 0) of each block writes its SM and the global
// timer at its start, after its loop and at its exit into gTimeline, and
// printTimeline summarizes 15 launches of it. Include after harness_bench.h.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <vector>

#include "harness_bench.h"
#include "harness_check.h"

struct BlockTrace {
  unsigned long long start, streamed, end;  // ns: first instruction, loop done, exit
  unsigned sm, pad;
};
__device__ BlockTrace gTimeline[1024];
__device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned smId() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// The block timeline (`--timeline`) of 15 launches, each after a flush:
// the SMs used and blocks per SM, and (medians over the launches) when the
// blocks started, finished their loop and exited, relative to the launch's
// first start (global timer), and the mean loop time of the blocks on SMs
// holding 1, 2, 3 ... blocks.
static void printTimeline(Flush& flush, const std::function<void()>& launch, int blocks) {
  constexpr int kLaunches = 15;
  std::vector<double> startMax, loopP50, loopMax, streamedMax, exitP50, exitMax;
  std::map<int, std::vector<double>> loopBySharing;  // blocks on the SM -> mean loop us
  std::map<int, int> histogram;                      // of the last launch
  size_t sms = 0;
  for (int l = 0; l < kLaunches; ++l) {
    flush.run();
    launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<BlockTrace> t(blocks);
    CHECK(cudaMemcpyFromSymbol(t.data(), gTimeline, blocks * sizeof(BlockTrace)));
    unsigned long long t0 = ~0ull;
    std::map<unsigned, int> perSm;
    for (const BlockTrace& b : t) {
      t0 = std::min(t0, b.start);
      ++perSm[b.sm];
    }
    std::vector<double> start, loop, streamed, end;
    std::map<int, std::pair<double, int>> sharing;
    for (const BlockTrace& b : t) {
      start.push_back((b.start - t0) * 1e-3);
      loop.push_back((b.streamed - b.start) * 1e-3);
      streamed.push_back((b.streamed - t0) * 1e-3);
      end.push_back((b.end - t0) * 1e-3);
      auto& [sum, n] = sharing[perSm[b.sm]];
      sum += loop.back();
      ++n;
    }
    for (const auto& [k, v] : sharing) loopBySharing[k].push_back(v.first / v.second);
    std::sort(loop.begin(), loop.end());
    std::sort(end.begin(), end.end());
    startMax.push_back(*std::max_element(start.begin(), start.end()));
    loopP50.push_back(loop[loop.size() / 2]);
    loopMax.push_back(loop.back());
    streamedMax.push_back(*std::max_element(streamed.begin(), streamed.end()));
    exitP50.push_back(end[end.size() / 2]);
    exitMax.push_back(end.back());
    histogram.clear();
    for (const auto& [sm, n] : perSm) ++histogram[n];
    sms = perSm.size();
  }
  std::printf("    %zu SMs:", sms);
  for (const auto& [n, count] : histogram) std::printf(" %d with %d block(s);", count, n);
  std::printf("\n    medians of %d launches (us from the first start): last start %.2f, loop p50 %.2f"
              " max %.2f, last loop end %.2f, exit p50 %.2f max %.2f\n    mean loop by blocks on the SM:",
              kLaunches, median(startMax), median(loopP50), median(loopMax), median(streamedMax),
              median(exitP50), median(exitMax));
  for (const auto& [k, v] : loopBySharing) std::printf(" %d: %.2f;", k, median(v));
  std::printf("\n");
}
