#include "core/scheduler/expr_eval/view_strides.h"

namespace fuserlab::scheduler {

std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    running *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

std::optional<std::vector<int64_t>> reshapeViewStrides(const std::vector<int64_t>& oldSizes,
                                                       const std::vector<int64_t>& oldStrides,
                                                       const std::vector<int64_t>& newSizes) {
  int64_t oldNumel = 1;
  for (int64_t s : oldSizes) oldNumel *= s;
  int64_t newNumel = 1;
  for (int64_t s : newSizes) newNumel *= s;
  if (oldNumel != newNumel) return std::nullopt;
  if (oldNumel == 0 || oldSizes.empty()) return contiguousStrides(newSizes);

  // Walk the old axes from the innermost, in chunks of axes that are
  // contiguous with each other; each chunk must be matched exactly by a run
  // of new axes, which then take strides within the chunk.
  std::vector<int64_t> newStrides(newSizes.size(), 0);
  int64_t viewD = static_cast<int64_t>(newSizes.size()) - 1;
  int64_t chunkBaseStride = oldStrides.back();
  int64_t tensorNumel = 1;
  int64_t viewNumel = 1;
  for (int64_t tensorD = static_cast<int64_t>(oldSizes.size()) - 1; tensorD >= 0; --tensorD) {
    tensorNumel *= oldSizes[tensorD];
    const bool chunkEnds =
        tensorD == 0 ||
        (oldSizes[tensorD - 1] != 1 && oldStrides[tensorD - 1] != tensorNumel * chunkBaseStride);
    if (!chunkEnds) continue;
    while (viewD >= 0 && (viewNumel < tensorNumel || newSizes[viewD] == 1)) {
      newStrides[viewD] = viewNumel * chunkBaseStride;
      viewNumel *= newSizes[viewD];
      --viewD;
    }
    if (viewNumel != tensorNumel) return std::nullopt;
    if (tensorD > 0) {
      chunkBaseStride = oldStrides[tensorD - 1];
      tensorNumel = 1;
      viewNumel = 1;
    }
  }
  if (viewD != -1) return std::nullopt;
  return newStrides;
}

}  // namespace fuserlab::scheduler
