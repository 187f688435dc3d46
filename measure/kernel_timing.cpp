#include "measure/kernel_timing.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "core/cuda/cuda_memory.h"
#include "measure/cupti_timer.h"
#include "measure/l2_flush.h"

namespace fuserlab::tuner {

KernelTimes measureKernelTimes(runtime::GpuExecutor& executor, const runtime::Arguments& inputs,
                               int samples) {
  KernelTimes times;
  std::string why;
  std::unique_ptr<CuptiTimer> timer = CuptiTimer::create(&why);
  if (!timer) {
    times.unavailable = why;
    return times;
  }
  // The flush's buffer, module and launches go to the current device.
  runtime::setCudaDevice(executor.device(), "timing the kernels with CUPTI");
  runtime::L2Flush flush(executor.deviceSpec(), executor.device());
  std::vector<double> busy, span;
  std::vector<std::vector<double>> perKernel;
  for (int s = 0; s < samples; ++s) {
    const uint64_t id = static_cast<uint64_t>(s) + 1;
    flush.enqueue();
    runtime::synchronizeCuda("the L2 flush before a CUPTI sample");
    timer->beginSample(id);  // drops the flush's records
    executor.run(inputs);    // returns synchronized
    timer->endSample();
    std::vector<KernelRecord> records = timer->collect();
    // A record the driver correlated to another sample is not this one's.
    records.erase(std::remove_if(records.begin(), records.end(),
                                 [&](const KernelRecord& r) { return r.sample != id; }),
                  records.end());
    if (records.empty()) {
      times.unavailable = "CUPTI reported no kernel for sample " + std::to_string(id);
      return times;
    }
    std::sort(records.begin(), records.end(),
              [](const KernelRecord& a, const KernelRecord& b) { return a.startNs < b.startNs; });
    if (s == 0) {
      for (const KernelRecord& r : records) times.kernels.push_back({r.name, {}});
      perKernel.resize(records.size());
    } else if (records.size() != perKernel.size()) {
      times.unavailable = "sample " + std::to_string(id) + " ran " +
                          std::to_string(records.size()) + " kernels, the first sample " +
                          std::to_string(perKernel.size());
      return times;
    }
    double sum = 0;
    const uint64_t first = records.front().startNs;  // sorted by start
    uint64_t last = 0;
    for (size_t k = 0; k < records.size(); ++k) {
      const double us = records[k].durationNs() * 1e-3;
      sum += us;
      perKernel[k].push_back(us);
      last = std::max(last, records[k].endNs);
    }
    busy.push_back(sum);
    span.push_back(static_cast<double>(last - first) * 1e-3);
  }
  times.busyMicroseconds = runtime::summarizeSamples(busy);
  times.spanMicroseconds = runtime::summarizeSamples(span);
  for (size_t k = 0; k < perKernel.size(); ++k) {
    times.kernels[k].microseconds = runtime::summarizeSamples(perKernel[k]);
  }
  return times;
}

std::vector<std::string> describeKernelTimes(const KernelTimes& times) {
  if (!times.unavailable.empty()) return {"GPU time not measured: " + times.unavailable};
  std::vector<std::string> lines;
  char buffer[256];
  const runtime::SampleSummary& span = times.spanMicroseconds;
  std::snprintf(buffer, sizeof(buffer),
                "GPU time (CUPTI, %d runs, L2 flushed before each): %.2f us median "
                "(p20 %.2f, p80 %.2f), first kernel start to last kernel end",
                span.count, span.median, span.p20, span.p80);
  lines.emplace_back(buffer);
  if (times.kernels.size() > 1) {
    for (const KernelTimes::Kernel& k : times.kernels) {
      std::snprintf(buffer, sizeof(buffer), "  %s: %.2f us", k.name.c_str(), k.microseconds.median);
      lines.emplace_back(buffer);
    }
  }
  return lines;
}

}  // namespace fuserlab::tuner
