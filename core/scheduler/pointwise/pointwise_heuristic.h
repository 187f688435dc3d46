// The pointwise heuristic, in the spirit of nvFuser's getPointwiseHeuristics:
// the reference is the largest output; the vectorization factor comes from
// the vectorization analysis; a 2-D schedule splits the reference at the
// break point that moves the fewest bytes when some inputs broadcast along
// an outer or an inner part; blocks are 128 threads; each thread is
// unrolled until the device has enough bytes in flight; indexing is 32-bit
// when every tensor's span allows it.
//
// The decision is plain data with every intermediate figure, so the report
// can say why (the properties of a pointwise segment).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/report/json.h"
#include "core/scheduler/analysis/vectorization.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

//! One break point considered, and what became of it.
struct BreakPointCandidate {
  int64_t breakPoint = 0;
  int64_t outerElements = 0;
  int64_t innerElements = 0;
  //! Bytes moved when tensors broadcast along one part are read once per
  //! element of the other part; -1 where not estimated.
  int64_t transferBytes = -1;
  //! "chosen", or why not ("saves less than 10% over 1-D").
  std::string verdict;
};

struct PointwiseDecision {
  PointwiseParams params;
  const ir::TensorView* reference = nullptr;
  //! The reference's extents in its allocation order.
  std::vector<int64_t> referenceShape;
  int64_t elements = 0;
  //! Bytes every input and output moves once.
  int64_t totalBytes = 0;
  //! The analysis at the chosen break point; its factor is the largest the
  //! params may use.
  VectorizationAnalysis vectorization;
  std::vector<BreakPointCandidate> candidates;
  //! Bytes a 1-D schedule moves (every tensor read at the full size).
  int64_t transferBytes1d = 0;
  std::string breakPointReason;
  //! Bytes each thread must keep in flight to cover DRAM latency.
  int64_t bytesInFlightPerThread = 0;
  std::string unrollReason;
  std::string largestSpanTensor;
  int64_t largestSpanElements = 0;

  //! The properties the report shows for a pointwise segment.
  report::Json toJson() const;
};

//! Decides the params of a pointwise `segment` (one that the pointwise
//! checks accept) at the sizes of `info`.
PointwiseDecision decidePointwise(const ir::Fusion& segment, const SegmentRuntimeInfo& info);

//! Why reference break point `breakPoint` cannot be used: a reshape maps one
//! axis of some tensor to reference axes on both sides of it. Empty if it
//! can.
std::string breakPointSplitsReshape(const ir::Fusion& segment, const SegmentRuntimeInfo& info,
                                    const ir::TensorView* reference, int64_t breakPoint);

}  // namespace fuserlab::scheduler
