// SegmentRuntimeInfo: what a scheduler knows about one segment at run time:
// the device, the concrete sizes of the segment's fusion (its extents are
// bound in `evaluator`), and for each tensor input its strides and the
// alignment of its data pointer. Plain data the caller fills; schedulers
// never see tensors.
#pragma once

#include <cstdint>
#include <vector>

#include "core/ir/evaluator.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::scheduler {

struct TensorInputInfo {
  std::vector<int64_t> sizes;    //!< as bound: the allocation-domain shape
  std::vector<int64_t> strides;  //!< in elements
  //! The largest power of two (<= 256) dividing the data pointer's byte
  //! address (storage offset included).
  int64_t alignmentBytes = 256;
};

struct SegmentRuntimeInfo {
  const DeviceSpec* device = nullptr;
  //! Extents of the segment fusion's tensors, bound.
  const ir::ExpressionEvaluator* evaluator = nullptr;
  //! One entry per segment fusion input; empty sizes for scalars.
  std::vector<TensorInputInfo> inputs;
};

}  // namespace fuserlab::scheduler
