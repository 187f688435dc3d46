#include "core/scheduler/pointwise/scan_segment.h"

#include <algorithm>

#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/scheduler/expr_summary.h"
#include "core/scheduler/pointwise/own_kernel_ops.h"

namespace fuserlab::scheduler {
namespace {

constexpr int64_t kThreadsPerBlock = 128;

std::string str(int64_t value) { return std::to_string(value); }

// The scan's line length and number of lines at the bound sizes.
struct ScanShape {
  int64_t length = 1;
  int64_t lines = 1;
};

ScanShape shapeOf(const ir::Expr& scan, const SegmentRuntimeInfo& info) {
  ScanShape shape;
  const auto* out = scan.output(0)->as<ir::TensorView>();
  const auto& axes = out->logicalNoReductions();
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t extent = info.evaluator->evaluateExtent(axes[k]);
    if (static_cast<int64_t>(k) == scan.attrs().dim) {
      shape.length = extent;
    } else {
      shape.lines *= extent;
    }
  }
  return shape;
}

}  // namespace

const ir::Expr* scanOf(const ir::Fusion& segment) { return ownKernelOps(segment).scan; }

std::string scanRefusal(const ir::Expr& scan) {
  return ownKernelOpRefusal(scan, "scan", "scan kernel");
}

std::optional<std::string> rejectScanSegment(const ir::Fusion& segment, const ir::Expr& scan) {
  return rejectBesideOwnKernelOp(segment, scan, "scan", "a scan kernel");
}

PointwiseParams scanParams(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  PointwiseParams params;
  const ir::Expr* scan = scanOf(segment);
  if (scan != nullptr) {
    const int64_t lines = shapeOf(*scan, info).lines;
    params.blockDimX = std::clamp<int64_t>((lines + 31) / 32 * 32, 32, kThreadsPerBlock);
  }
  params.useInt32Indexing = largestSpan(segment, info).fitsInt32();
  return params;
}

std::optional<std::string> rejectScanParams(const ir::Fusion& segment,
                                            const SegmentRuntimeInfo& info,
                                            const PointwiseParams& params) {
  if (auto why = rejectVectorsUnrollingOrSplit(params, "a scan kernel runs one thread per line")) {
    return why;
  }
  if (params.blockDimX < 1 || params.blockDimX > info.device->maxThreadsPerBlock) {
    return "block_dim_x " + str(params.blockDimX) + " does not fit the " +
           str(info.device->maxThreadsPerBlock) + " threads per block of the " + info.device->name;
  }
  if (params.useInt32Indexing) {
    if (auto why = rejectInt32Indexing(segment, info)) return why;
  }
  return std::nullopt;
}

report::Json scanProperties(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  report::Json json = report::Json::object();
  const ir::Expr* scan = scanOf(segment);
  if (scan == nullptr) return json;
  const ScanShape shape = shapeOf(*scan, info);
  json.set("scan", exprSummary(*scan));
  json.set("scan_axis", scan->attrs().dim);
  json.set("line_length", shape.length);
  json.set("lines", shape.lines);
  json.set("schedule", std::string("one thread per line, walking the scanned axis in order"));
  return json;
}

}  // namespace fuserlab::scheduler
