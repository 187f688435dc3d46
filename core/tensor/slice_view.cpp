#include "core/tensor/slice_view.h"

#include <algorithm>

#include "core/ir/error.h"

namespace fuserlab::runtime {

void sliceViewAxis(std::vector<int64_t>& sizes, std::vector<int64_t>& strides, int64_t& offset,
                   int64_t d, int64_t start, int64_t stop, int64_t step, const std::string& what) {
  FL_CHECK(step > 0, "slice: the step of axis ", d, " must be positive, got ", step, " (", what,
           ")");
  const auto axis = static_cast<size_t>(d);
  const int64_t size = sizes[axis];
  auto normalize = [size](int64_t bound) {
    if (bound < 0) bound += size;
    return std::clamp<int64_t>(bound, 0, size);
  };
  start = normalize(start);
  stop = normalize(stop);
  const int64_t length = stop > start ? (stop - start + step - 1) / step : 0;
  if (length > 0) offset += start * strides[axis];
  sizes[axis] = length;
  strides[axis] *= step;
}

}  // namespace fuserlab::runtime
