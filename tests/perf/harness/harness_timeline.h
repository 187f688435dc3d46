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
// With `gridX` > 0 the launch is in clusters of the blocks that share a
// blockIdx.x (cluster dims (1, gridDim.y)), and a cluster's blocks lie in
// one GPC: the SMs the clusters of all 15 launches touched are joined into
// GPCs, and each GPC's SMs, blocks and loop times (means and maxima over its
// blocks, medians over the launches) are printed: is the slowest block's
// loop the GPC's share of the bandwidth?
static void printGpcTable(const std::vector<std::vector<BlockTrace>>& launches, int gridX);
static void printTimeline(Flush& flush, const std::function<void()>& launch, int blocks,
                          int gridX = 0) {
  std::vector<std::vector<BlockTrace>> traces;
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
    traces.push_back(t);
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
  std::printf(
      "\n    medians of %d launches (us from the first start): last start %.2f, loop p50 %.2f"
      " max %.2f, last loop end %.2f, exit p50 %.2f max %.2f\n    mean loop by blocks on the SM:",
      kLaunches, median(startMax), median(loopP50), median(loopMax), median(streamedMax),
      median(exitP50), median(exitMax));
  for (const auto& [k, v] : loopBySharing) std::printf(" %d: %.2f;", k, median(v));
  std::printf("\n");
  if (gridX > 0) printGpcTable(traces, gridX);
}

static unsigned findRoot(std::map<unsigned, unsigned>& parent, unsigned x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

static void printGpcTable(const std::vector<std::vector<BlockTrace>>& launches, int gridX) {
  std::map<unsigned, unsigned> parent;
  for (const auto& t : launches) {
    for (const BlockTrace& b : t) parent.emplace(b.sm, b.sm);
    for (size_t i = 0; i < t.size(); ++i) {
      const size_t head = i % gridX;  // the cluster's first block (blockIdx.y 0)
      const unsigned a = findRoot(parent, t[i].sm), c = findRoot(parent, t[head].sm);
      if (a != c) parent[a] = c;
    }
  }
  std::map<unsigned, std::vector<unsigned>> gpcSms;
  for (const auto& [sm, p] : parent) gpcSms[findRoot(parent, sm)].push_back(sm);
  struct Row {
    std::vector<double> blocks, mean, max, slowest;
  };
  std::map<unsigned, Row> rows;
  for (const auto& t : launches) {
    std::map<unsigned, std::vector<double>> loops;
    double worst = 0;
    unsigned worstGpc = 0;
    for (const BlockTrace& b : t) {
      const double us = (b.streamed - b.start) * 1e-3;
      const unsigned g = findRoot(parent, b.sm);
      loops[g].push_back(us);
      if (us > worst) {
        worst = us;
        worstGpc = g;
      }
    }
    for (const auto& [g, sm] : gpcSms) {
      Row& r = rows[g];
      const std::vector<double>& l = loops[g];
      double sum = 0, mx = 0;
      for (double x : l) {
        sum += x;
        mx = std::max(mx, x);
      }
      r.blocks.push_back((double)l.size());
      r.mean.push_back(l.empty() ? 0 : sum / l.size());
      r.max.push_back(mx);
      r.slowest.push_back(g == worstGpc ? 1 : 0);
    }
  }
  std::printf(
      "    %zu GPCs (SMs joined by the clusters they held); per GPC, medians of the launches:\n",
      gpcSms.size());
  for (const auto& [g, sms] : gpcSms) {
    const Row& r = rows[g];
    double slowest = 0;
    for (double x : r.slowest) slowest += x;
    std::printf(
        "      GPC of %2zu SMs: blocks %5.1f, loop mean %6.2f max %6.2f us; the grid's slowest "
        "loop in %2.0f of %zu launches\n",
        sms.size(), median(r.blocks), median(r.mean), median(r.max), slowest, r.max.size());
  }
}
