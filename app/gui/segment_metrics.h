// SegmentMetrics: what was measured of each segment of a compile, for the
// graph's overlay: its kernel's GPU time, the bandwidth that time gives as a
// fraction of the copy bandwidth, registers and spills (ptxas), and the tuned
// params' speedup over the heuristic's. Plain C++: the figures come from a
// `fuserlab-cli bench --json` file, a GPU run's kernel times, a tuning sweep
// or the heuristics database, and are matched to the segments by kernel
// name ("<scheduler>_seg<N>", as codegen names them), so a figure never
// lands on a segment of another scheduler after a recompile.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/report/compile_report.h"
#include "core/report/json.h"

namespace fuserlab::gui {

//! The metrics the overlay can colour by, in the legend's order.
enum class Metric { KernelTime, CopyBandwidth, Registers, Spills, TunedSpeedup };

inline constexpr Metric kAllMetrics[] = {Metric::KernelTime, Metric::CopyBandwidth,
                                         Metric::Registers, Metric::Spills, Metric::TunedSpeedup};

//! "kernel time", "% of copy bandwidth", ...
std::string metricName(Metric metric);

//! "0.412 us", "12.3 us", "1234 us": a kernel time as the overlay writes it.
std::string microsecondsText(double microseconds);

struct SegmentMetrics {
  std::optional<double> kernelMicroseconds;  //!< median GPU time of its kernel
  //! Bytes the segment reads and writes once, over its kernel time, as a
  //! fraction of the copy bandwidth (1 = as fast as cudaMemcpy).
  std::optional<double> copyBandwidthFraction;
  std::optional<int64_t> registers;   //!< per thread
  std::optional<int64_t> spillBytes;  //!< spill stores + loads, per thread
  //! The heuristic's median over the tuned params' median (2 = twice as fast).
  std::optional<double> tunedSpeedup;

  //! The metric's value, if measured.
  std::optional<double> value(Metric metric) const;
  //! "12.3 us, 81% copy BW, 40 regs, 0 spills, 1.25x tuned" (what is known).
  std::string label() const;
};

using SegmentMetricsMap = std::map<int, SegmentMetrics>;

//! One kernel's GPU time, as bench or a run reports it.
struct KernelFigure {
  std::string name;  //!< the kernel's name ("pointwise_seg0")
  double medianMicroseconds = 0;
};

//! Kernel times from one source (a bench file, a run), with the copy
//! bandwidth measured beside them (0 if not).
struct KernelFigures {
  std::string origin;  //!< "bench.json", "GPU run" (for the legend)
  std::vector<KernelFigure> kernels;
  double copyBytesPerSecond = 0;
};

//! The kernel times of a `fuserlab-cli bench --json` file's object
//! (cupti_kernels.kernels[].name and .us.median; copy.bandwidth_bytes_per_s).
//! A UserError saying what is missing when it is not such a file.
KernelFigures kernelFiguresFromBench(const report::Json& bench, const std::string& origin);

//! The segment id a kernel name stands for, if it is codegen's
//! "<scheduler>_seg<N>" and segment N of `report` has that scheduler.
std::optional<int> segmentOfKernel(const std::string& kernelName,
                                   const report::CompileReport& report);

//! The bytes segment `segment` moves if it reads each input and writes each
//! output once (tensors only, at their concrete shapes).
int64_t segmentBytes(const report::CompileReport& report, int segment);

//! Adds `figures` (time, and the bandwidth fraction when a copy bandwidth was
//! measured) to the segments of `report` their kernels stand for.
void addKernelFigures(const KernelFigures& figures, const report::CompileReport& report,
                      SegmentMetricsMap& metrics);

}  // namespace fuserlab::gui
