#include "core/scheduler/pointwise/pointwise_heuristic.h"

#include <algorithm>
#include <sstream>

#include "core/ir/error.h"
#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/memory_layout.h"

namespace fuserlab::scheduler {
namespace {

using ir::TensorView;

constexpr int64_t kThreadsPerBlock = 128;
// DRAM latency the bytes in flight must cover; with an H100's 3.35 TB/s over
// 132 SMs of 2048 threads, a thread needs about 7 bytes in flight.
constexpr double kDramLatencySeconds = 600e-9;
// Waves of blocks a pointwise kernel should keep after unrolling.
constexpr int64_t kTargetWaves = 8;
constexpr int64_t kMaxGridY = 65535;
// Rows a thread handles when inputs broadcast along the outer part (a bias,
// RoPE's cos/sin tables) can be loaded once and shared by those rows, and
// the waves of blocks that must remain.
constexpr int64_t kSharedLoadRows = 2;
constexpr int64_t kSharedLoadMinWaves = 2;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t roundUpPow2(int64_t value) {
  int64_t p = 1;
  while (p < value) p *= 2;
  return p;
}

int64_t roundDownPow2(int64_t value) {
  int64_t p = 1;
  while (p * 2 <= value) p *= 2;
  return p;
}

// What one input or output moves, and along which reference axes.
struct Footprint {
  const TensorView* tv = nullptr;
  bool isInput = false;
  int64_t dtypeBytes = 0;
  std::vector<bool> moves;  // per reference axis
  bool vectorized = false;

  bool movesIn(int64_t begin, int64_t end) const {
    for (int64_t k = begin; k < end; ++k) {
      if (moves[k]) return true;
    }
    return false;
  }
};

std::vector<Footprint> footprints(const ir::Fusion& segment, const AxisTrace& trace,
                                  const VectorizationAnalysis& vectorization) {
  std::vector<Footprint> out;
  const size_t rank = trace.referenceAxes().size();
  for (const TensorView* tv : inputsAndOutputs(segment)) {
    Footprint f;
    f.tv = tv;
    f.isInput = segment.isInput(tv);
    f.dtypeBytes = ir::sizeInBytes(tv->dtype());
    const TensorTrace* t = trace.find(tv);
    for (size_t k = 0; k < rank; ++k) {
      // Without a trace, or where it is lost, assume the tensor moves.
      f.moves.push_back(t == nullptr || t->moves(k) || t->lost(k));
    }
    const TensorVectorization* v = vectorization.find(tv->name());
    f.vectorized = v != nullptr && v->vectorized;
    out.push_back(std::move(f));
  }
  return out;
}

// Bytes moved with break point `b`: a tensor that does not move along the
// outer (inner) part is read once per element of the other part.
int64_t transferBytes(const std::vector<Footprint>& tensors, int64_t b, int64_t outer,
                      int64_t inner, int64_t rank) {
  int64_t total = 0;
  for (const Footprint& f : tensors) {
    total += f.dtypeBytes * (f.movesIn(0, b) ? outer : 1) * (f.movesIn(b, rank) ? inner : 1);
  }
  return total;
}

std::string bytesString(int64_t bytes) { return std::to_string(bytes) + " bytes"; }

// Chooses the break point; 0 for a 1-D schedule.
int64_t chooseBreakPoint(PointwiseDecision& d, const ir::Fusion& segment,
                         const SegmentRuntimeInfo& info, const std::vector<Footprint>& tensors,
                         int64_t maxFactor) {
  const DeviceSpec& device = *info.device;
  const auto& shape = d.referenceShape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t bytesPerElement = 0;
  for (const Footprint& f : tensors) bytesPerElement += f.dtypeBytes;
  d.transferBytes1d = d.elements * bytesPerElement;

  if (rank <= 1) {
    d.breakPointReason = "1-D: the reference " + d.reference->name() + " has a single axis";
    return 0;
  }
  const int64_t oneWave = int64_t{device.smCount} * kThreadsPerBlock;
  if (d.elements * 2 <= oneWave) {
    d.breakPointReason = "1-D: " + std::to_string(d.elements) +
                         " elements are too few for a 2-D schedule (half a "
                         "wave of 128-thread blocks on " +
                         std::to_string(device.smCount) + " SMs is " + std::to_string(oneWave / 2) +
                         ")";
    return 0;
  }

  int64_t best = 0;
  int64_t bestBytes = 0;
  for (int64_t b = 1; b < rank; ++b) {
    BreakPointCandidate c;
    c.breakPoint = b;
    c.innerElements = 1;
    for (int64_t k = b; k < rank; ++k) c.innerElements *= shape[k];
    c.outerElements = c.innerElements ? d.elements / c.innerElements : 0;
    if (c.outerElements <= 1 || c.innerElements <= 1) {
      c.verdict = c.outerElements <= 1 ? "the outer part has a single element"
                                       : "the inner part has a single element";
      d.candidates.push_back(c);
      continue;
    }
    const std::string split = breakPointSplitsReshape(segment, info, d.reference, b);
    if (!split.empty()) {
      c.verdict = split;
      d.candidates.push_back(c);
      continue;
    }
    c.transferBytes = transferBytes(tensors, b, c.outerElements, c.innerElements, rank);
    if (c.transferBytes * 10 >= d.transferBytes1d * 9) {
      c.verdict = "saves less than 10% over the 1-D schedule (" + bytesString(c.transferBytes) +
                  " vs " + bytesString(d.transferBytes1d) + ")";
    } else if (best != 0 && c.transferBytes >= bestBytes) {
      c.verdict = "moves no fewer bytes than break point " + std::to_string(best);
    } else if (ceilDiv(c.innerElements, maxFactor) <= device.warpSize) {
      c.verdict = "the inner part (" + std::to_string(c.innerElements) +
                  " elements) fills less than a warp after vectorization";
    } else {
      for (BreakPointCandidate& previous : d.candidates) {
        if (previous.verdict == "chosen") {
          previous.verdict = "moves more bytes than break point " + std::to_string(b);
        }
      }
      c.verdict = "chosen";
      best = b;
      bestBytes = c.transferBytes;
    }
    d.candidates.push_back(c);
  }
  if (best == 0) {
    d.breakPointReason = "1-D: no break point saves 10% of the bytes a 1-D schedule moves (" +
                         bytesString(d.transferBytes1d) + ")";
  } else {
    d.breakPointReason = "2-D at break point " + std::to_string(best) +
                         ": tensors broadcast "
                         "along one part are read once per element of the other, " +
                         bytesString(bestBytes) + " instead of " + bytesString(d.transferBytes1d);
  }
  return best;
}

// Block and grid shape, unrolling and grid flipping for break point `b`.
// False if the grid cannot be launched (grid y too large either way).
bool launchShape(PointwiseDecision& d, const SegmentRuntimeInfo& info,
                 const std::vector<Footprint>& tensors, int64_t b) {
  const DeviceSpec& device = *info.device;
  PointwiseParams& p = d.params;
  const int64_t rank = static_cast<int64_t>(d.referenceShape.size());
  const int64_t vect = d.vectorization.factor;
  p.breakPoint = b;
  p.vectorizationFactor = vect;
  p.flipGrid = false;
  p.unrollFactorInner = 1;
  p.unrollFactorOuter = 1;

  int64_t outer = 1, inner = d.elements;
  int64_t gridOuter = 1, gridInner = 1;
  bool outerBroadcastDominated = false;
  if (b > 0) {
    inner = 1;
    for (int64_t k = b; k < rank; ++k) inner *= d.referenceShape[k];
    outer = d.elements / inner;
    const int64_t afterVect = ceilDiv(inner, vect);
    int64_t bdimx = std::min<int64_t>(afterVect, device.warpSize);
    while (bdimx * 2 <= kThreadsPerBlock && bdimx * 2 <= afterVect &&
           afterVect % (bdimx * 2) == 0) {
      bdimx *= 2;
    }
    p.blockDimX = bdimx;
    p.blockDimY = kThreadsPerBlock / bdimx;
    gridOuter = ceilDiv(outer, p.blockDimY);
    gridInner = ceilDiv(inner, bdimx * vect);
    int64_t outerBytes = 0, innerBytes = 0;
    for (const Footprint& f : tensors) {
      if (f.movesIn(0, b)) outerBytes += f.dtypeBytes;
      if (f.movesIn(b, rank)) innerBytes += f.dtypeBytes;
    }
    // Outer broadcast (or balanced) with an inner part larger than half the
    // L2: walk the outer part fastest so the inner part stays in L2.
    p.flipGrid = outerBytes <= innerBytes && device.l2CacheBytes < inner * innerBytes * 2;
    outerBroadcastDominated = outerBytes < innerBytes;
  } else {
    p.blockDimX = kThreadsPerBlock;
    p.blockDimY = 1;
  }

  // Unroll until each thread has enough bytes in flight, but keep waves.
  int64_t widestVectorized = 0;
  int64_t vectorizedInputs = 0;
  for (const Footprint& f : tensors) {
    if (!f.vectorized) continue;
    widestVectorized = std::max(widestVectorized, f.dtypeBytes);
    if (f.isInput && (b == 0 || f.movesIn(0, b))) ++vectorizedInputs;
  }
  const double bytesInFlightPerSm =
      device.memoryBandwidthBytesPerSecond * kDramLatencySeconds / std::max(1, device.smCount);
  d.bytesInFlightPerThread =
      static_cast<int64_t>(bytesInFlightPerSm / std::max(1, device.maxThreadsPerSm));
  const int64_t accessBytes = vect * std::max<int64_t>(widestVectorized, 1);
  int64_t empirical = roundDownPow2(std::max<int64_t>(1, d.bytesInFlightPerThread / accessBytes));
  if (empirical > 1) {
    empirical =
        roundDownPow2(std::max<int64_t>(1, empirical / std::max<int64_t>(1, vectorizedInputs)));
  }
  const int64_t totalBlocks =
      b > 0 ? gridOuter * gridInner : ceilDiv(d.elements, vect * kThreadsPerBlock);
  const int64_t blocksPerWave =
      std::max<int64_t>(1, device.maxThreadsPerSm / kThreadsPerBlock) * device.smCount;
  const int64_t waves = ceilDiv(totalBlocks, blocksPerWave);
  const int64_t waveLimited = roundUpPow2(ceilDiv(waves, kTargetWaves));
  const bool divisible =
      b > 0 ? inner % (vect * p.blockDimX) == 0 : d.elements % (vect * kThreadsPerBlock) == 0;
  int64_t unroll = std::min(empirical, waveLimited);
  std::ostringstream why;
  why << "each thread needs " << d.bytesInFlightPerThread
      << " bytes in flight to cover DRAM latency and one access moves " << accessBytes << " bytes";
  if (empirical == 1) {
    why << ", so no unrolling to cover it";
  } else if (waveLimited < empirical && !divisible) {
    unroll = 1;
    why << "; " << totalBlocks << " blocks are only " << waves
        << " wave(s) and the split is not divisible, so no unrolling";
  } else {
    why << "; unroll " << unroll << " (" << totalBlocks << " blocks, " << waves << " wave(s))";
  }
  // Inputs that do not move along the outer part are loaded once per inner
  // chunk and shared by the rows a thread unrolls (the pointwise emitter's
  // row-independent loads): unroll rows to reuse them.
  int64_t sharedInputs = 0;
  for (const Footprint& f : tensors) {
    if (b > 0 && f.isInput && f.vectorized && !f.movesIn(0, b)) ++sharedInputs;
  }
  if (sharedInputs > 0 && outerBroadcastDominated) {
    const int64_t rowsPerThread = ceilDiv(outer, p.blockDimY);
    int64_t rows = kSharedLoadRows;
    while (rows > 1 && (rows > rowsPerThread ||
                        ceilDiv(totalBlocks, rows) < kSharedLoadMinWaves * blocksPerWave)) {
      rows /= 2;
    }
    if (rows > unroll) {
      unroll = rows;
      why << "; " << sharedInputs << " input(s) broadcast along the outer part are loaded "
          << "once for the " << rows << " rows each thread unrolls";
    }
  }
  d.unrollReason = why.str();
  if (outerBroadcastDominated) {
    p.unrollFactorOuter = unroll;
  } else {
    p.unrollFactorInner = unroll;
  }

  if (b > 0) {
    gridOuter = ceilDiv(gridOuter, p.unrollFactorOuter);
    gridInner = ceilDiv(gridInner, p.unrollFactorInner);
    const int64_t gridY = p.flipGrid ? gridInner : gridOuter;
    if (gridY > kMaxGridY) {
      const int64_t other = p.flipGrid ? gridOuter : gridInner;
      if (other > kMaxGridY) return false;
      p.flipGrid = !p.flipGrid;
    }
  }
  return true;
}

}  // namespace

std::string breakPointSplitsReshape(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                    const TensorView* reference, int64_t breakPoint) {
  const AxisTrace trace(segment, reference, info.evaluator);
  const int64_t rank = static_cast<int64_t>(trace.referenceAxes().size());
  for (const TensorView* tv : inputsAndOutputs(segment)) {
    const TensorTrace* t = trace.find(tv);
    if (t == nullptr) continue;
    for (int64_t k = 0; k < breakPoint && k < rank; ++k) {
      for (const AxisPiece& outer : t->axes[k]) {
        if (outer.kind != PieceKind::Axis) continue;
        for (int64_t j = breakPoint; j < rank; ++j) {
          for (const AxisPiece& inner : t->axes[j]) {
            if (inner.kind == PieceKind::Axis && inner.id == outer.id) {
              const auto& logical = tv->logicalNoReductions();
              const auto axis =
                  std::find(logical.begin(), logical.end(), outer.id) - logical.begin();
              return "a reshape maps axis " + std::to_string(axis) + " of " + tv->name() +
                     " to reference axes on both sides of break "
                     "point " +
                     std::to_string(breakPoint);
            }
          }
        }
      }
    }
  }
  return {};
}

PointwiseDecision decidePointwise(const ir::Fusion& segment, const SegmentRuntimeInfo& info) {
  FL_ASSERT(info.device != nullptr && info.evaluator != nullptr,
            "the pointwise heuristic needs a device and bound sizes");
  PointwiseDecision d;
  d.reference = largestOutput(segment, info.evaluator);
  FL_ASSERT(d.reference != nullptr, "a pointwise segment has a tensor output");
  const AxisTrace trace(segment, d.reference, info.evaluator);
  d.referenceShape = trace.referenceExtents();
  d.elements = 1;
  for (size_t k = 0; k < d.referenceShape.size(); ++k) {
    FL_ASSERT(d.referenceShape[k] >= 0, "extent of axis ", k, " of ", d.reference->name(),
              " is not bound");
    d.elements *= d.referenceShape[k];
  }
  for (const TensorView* tv : inputsAndOutputs(segment)) {
    const MemoryLayout layout = memoryLayout(segment, tv, info);
    int64_t elements = 1;
    for (int64_t k = 0; k < layout.rank(); ++k) {
      if (layout.strides[k] != 0) elements *= std::max<int64_t>(layout.extents[k], 0);
    }
    d.totalBytes += elements * ir::sizeInBytes(tv->dtype());
  }
  const LargestSpan span = largestSpan(segment, info);
  d.largestSpanTensor = span.tensor;
  d.largestSpanElements = span.elements;
  d.params.useInt32Indexing = span.fitsInt32();

  VectorizationQuery query;
  query.reference = d.reference;
  query.splitWideAccesses = true;
  d.vectorization = analyzeVectorization(segment, info, query);
  const std::vector<Footprint> tensors = footprints(segment, trace, d.vectorization);

  if (d.elements == 0) {
    d.params.vectorizationFactor = 1;
    d.breakPointReason = "1-D: the reference " + d.reference->name() + " has no elements";
    d.unrollReason = "nothing to unroll";
    return d;
  }

  const int64_t b = chooseBreakPoint(d, segment, info, tensors, d.vectorization.factor);
  if (b > 0) {
    query.breakPoint = b;
    d.vectorization = analyzeVectorization(segment, info, query);
  }
  if (!launchShape(d, info, tensors, b)) {
    d.breakPointReason +=
        "; but its grid exceeds 65535 blocks along y "
        "either way, so 1-D";
    for (BreakPointCandidate& c : d.candidates) {
      if (c.verdict == "chosen") c.verdict = "its grid exceeds 65535 along y";
    }
    query.breakPoint = 0;
    d.vectorization = analyzeVectorization(segment, info, query);
    launchShape(d, info, tensors, 0);
  }
  return d;
}

report::Json PointwiseDecision::toJson() const {
  report::Json json = report::Json::object();
  json.set("reference", reference ? reference->name() : std::string());
  json.set("reference_shape", report::Json::arrayOf(referenceShape));
  json.set("elements", elements);
  json.set("total_bytes", totalBytes);
  json.set("max_allowed_vectorize_factor", vectorization.factor);
  json.set("vectorize_factor_reason", vectorization.reason());
  json.set("vectorization", vectorization.toJson());
  json.set("break_point", params.breakPoint);
  json.set("break_point_reason", breakPointReason);
  report::Json list = report::Json::array();
  for (const BreakPointCandidate& c : candidates) {
    report::Json entry = report::Json::object();
    entry.set("break_point", c.breakPoint);
    entry.set("outer_elements", c.outerElements);
    entry.set("inner_elements", c.innerElements);
    entry.set("transfer_bytes", c.transferBytes);
    entry.set("verdict", c.verdict);
    list.push(std::move(entry));
  }
  json.set("break_point_candidates", std::move(list));
  json.set("transfer_bytes_1d", transferBytes1d);
  json.set("bytes_in_flight_per_thread", bytesInFlightPerThread);
  json.set("unroll_reason", unrollReason);
  json.set("index_type", params.useInt32Indexing ? "int32" : "int64");
  json.set("largest_span_tensor", largestSpanTensor);
  json.set("largest_span_elements", largestSpanElements);
  return json;
}

}  // namespace fuserlab::scheduler
