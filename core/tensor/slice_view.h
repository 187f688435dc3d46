// Slice view: one axis of a strided view sliced [start:stop:step] as Python
// and PyTorch bound it (a negative bound counts from the end; bounds clamp to
// the axis; an empty range gives length 0). The CPU reference and the GPU
// runtime's views both take it from here, so their slices cannot differ.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fuserlab::runtime {

//! Narrows axis `d` of the view (`sizes`, `strides`, `offset`) to
//! [start:stop:step]. A step that is not positive is a UserError naming
//! `what` (the slice expr's text).
void sliceViewAxis(std::vector<int64_t>& sizes, std::vector<int64_t>& strides, int64_t& offset,
                   int64_t d, int64_t start, int64_t stop, int64_t step, const std::string& what);

}  // namespace fuserlab::runtime
