// View strides: whether a meta op's result can share its producer's memory,
// and with which strides, as PyTorch decides for Tensor.view. The expr_eval
// scheduler takes only segments whose every tensor is such a view.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace fuserlab::scheduler {

//! The strides (in elements) of a tensor of `newSizes` that views memory laid
//! out as `oldSizes`/`oldStrides` in row-major element order, or nullopt if
//! none can (the reshape needs a copy). PyTorch's computeStride: a view
//! exists when every group of old axes that the reshape merges or splits is
//! contiguous within itself. An empty tensor views anything.
std::optional<std::vector<int64_t>> reshapeViewStrides(const std::vector<int64_t>& oldSizes,
                                                       const std::vector<int64_t>& oldStrides,
                                                       const std::vector<int64_t>& newSizes);

//! Row-major contiguous strides of `sizes`.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes);

}  // namespace fuserlab::scheduler
