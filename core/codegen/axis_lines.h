// The lines of a tensor along one axis at a segment's bound sizes: what the
// scan and sort kernels walk, one thread (scan) or one block (sort) a line.
// A line's number gives its position along the other axes, the innermost
// fastest and the outermost of them taking what is left.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/tensor_view.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

struct AxisLines {
  std::vector<int64_t> extents;  //!< the tensor's, in logical order
  int64_t axis = 0;
  int64_t lines = 1;       //!< the product of the other extents
  int64_t length = 1;      //!< the axis' extent
  int64_t outermost = -1;  //!< the first axis other than `axis`; -1 if none

  //! `constexpr index_t e<k> = ...;` for the extents the decomposition
  //! divides by (and the axis' own with `withAxis`), each line commented
  //! with `<sizeOf>.size[k]` where `sizeOf` is given; then `lines`.
  std::string declarations(bool withAxis, const std::string& sizeOf) const;
  //! `index_t a<k>` for every axis but `axis`, from the index_t `line`,
  //! each statement at `indent` spaces.
  std::string positionCode(int indent) const;
};

//! `tv`'s lines along `axis` at the sizes `info` binds.
AxisLines axisLines(const ir::TensorView& tv, int64_t axis,
                    const scheduler::SegmentRuntimeInfo& info);

}  // namespace fuserlab::codegen
