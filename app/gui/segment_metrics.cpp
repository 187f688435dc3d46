#include "app/gui/segment_metrics.h"

#include <cstdio>
#include <regex>

#include "core/ir/data_type.h"
#include "core/ir/error.h"

namespace fuserlab::gui {
namespace {

std::string formatNumber(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

const report::Json& member(const report::Json& object, std::string_view key,
                           const std::string& where) {
  const report::Json* found = object.get(key);
  FL_CHECK(found != nullptr, where, " has no '", key,
           "': expected the JSON object `fuserlab-cli bench --json` writes");
  return *found;
}

}  // namespace

std::string microsecondsText(double microseconds) {
  // Three significant digits, never an exponent: "0.412 us", "12.3 us", "1234 us".
  return formatNumber(microseconds < 100 ? "%.3g us" : "%.0f us", microseconds);
}

std::string metricName(Metric metric) {
  switch (metric) {
    case Metric::KernelTime: return "kernel time";
    case Metric::CopyBandwidth: return "% of copy bandwidth";
    case Metric::Registers: return "registers";
    case Metric::Spills: return "spills";
    case Metric::TunedSpeedup: return "tuned speedup";
  }
  return "?";
}

std::optional<double> SegmentMetrics::value(Metric metric) const {
  switch (metric) {
    case Metric::KernelTime: return kernelMicroseconds;
    case Metric::CopyBandwidth:
      return copyBandwidthFraction ? std::optional<double>(*copyBandwidthFraction * 100)
                                   : std::nullopt;
    case Metric::Registers:
      return registers ? std::optional<double>(double(*registers)) : std::nullopt;
    case Metric::Spills:
      return spillBytes ? std::optional<double>(double(*spillBytes)) : std::nullopt;
    case Metric::TunedSpeedup: return tunedSpeedup;
  }
  return std::nullopt;
}

std::string SegmentMetrics::label() const {
  std::vector<std::string> parts;
  if (kernelMicroseconds) parts.push_back(microsecondsText(*kernelMicroseconds));
  if (copyBandwidthFraction) {
    parts.push_back(formatNumber("%.0f%% copy BW", *copyBandwidthFraction * 100));
  }
  if (registers) parts.push_back(std::to_string(*registers) + " regs");
  if (spillBytes) {
    parts.push_back(*spillBytes == 0 ? std::string("no spills")
                                     : std::to_string(*spillBytes) + " B spilled");
  }
  if (tunedSpeedup) parts.push_back(formatNumber("%.2fx tuned", *tunedSpeedup));
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
  return text;
}

KernelFigures kernelFiguresFromBench(const report::Json& bench, const std::string& origin) {
  FL_CHECK(bench.isObject(), origin, " holds a JSON ", bench.typeName(),
           ", not the object `fuserlab-cli bench --json` writes");
  KernelFigures figures;
  figures.origin = origin;
  const report::Json& cupti = member(bench, "cupti_kernels", origin);
  if (const report::Json* why = cupti.get("unavailable")) {
    FL_USER_ERROR(origin, " has no kernel times: bench could not time the kernels (",
                  why->isString() ? why->asString() : std::string("no reason given"), ")");
  }
  for (const report::Json& kernel : member(cupti, "kernels", origin).items()) {
    KernelFigure figure;
    figure.name = member(kernel, "name", origin + " cupti_kernels.kernels[]").asString();
    figure.medianMicroseconds =
        member(member(kernel, "us", origin + " " + figure.name), "median", origin).asDouble();
    figures.kernels.push_back(std::move(figure));
  }
  if (const report::Json* copy = bench.get("copy")) {
    if (const report::Json* bandwidth = copy->get("bandwidth_bytes_per_s")) {
      figures.copyBytesPerSecond = bandwidth->asDouble();
    }
  }
  return figures;
}

std::optional<int> segmentOfKernel(const std::string& kernelName,
                                   const report::CompileReport& report) {
  static const std::regex pattern(R"(^(\w+)_seg(\d+)$)");
  std::smatch match;
  if (!std::regex_match(kernelName, match, pattern)) return std::nullopt;
  const int id = std::stoi(match[2].str());
  for (const auto& segment : report.segments) {
    if (segment.id == id && segment.scheduler == match[1].str()) return id;
  }
  return std::nullopt;
}

int64_t segmentBytes(const report::CompileReport& report, int segment) {
  for (const auto& s : report.segments) {
    if (s.id != segment) continue;
    int64_t bytes = 0;
    for (const auto* names : {&s.inputs, &s.outputs}) {
      for (const std::string& name : *names) {
        for (const auto& value : report.values) {
          if (value.name != name || !value.isTensor) continue;
          const auto dtype = ir::parseDataType(value.dtype);
          if (!dtype) break;
          int64_t elements = 1;
          for (int64_t size : value.shape) elements *= size;
          bytes += elements * ir::sizeInBytes(*dtype);
          break;
        }
      }
    }
    return bytes;
  }
  return 0;
}

void addKernelFigures(const KernelFigures& figures, const report::CompileReport& report,
                      SegmentMetricsMap& metrics) {
  for (const KernelFigure& kernel : figures.kernels) {
    const std::optional<int> segment = segmentOfKernel(kernel.name, report);
    if (!segment) continue;
    SegmentMetrics& m = metrics[*segment];
    m.kernelMicroseconds = kernel.medianMicroseconds;
    const int64_t bytes = segmentBytes(report, *segment);
    if (figures.copyBytesPerSecond > 0 && kernel.medianMicroseconds > 0 && bytes > 0) {
      m.copyBandwidthFraction =
          double(bytes) / (kernel.medianMicroseconds * 1e-6) / figures.copyBytesPerSecond;
    }
  }
}

}  // namespace fuserlab::gui
