// Pointwise knobs: vectorization, unrolling, block shape, 1-D or 2-D with
// its break point, and the grid flip of 2-D schedules.
#include <algorithm>

#include "tuner/search_space_families.h"

namespace fuserlab::tuner {
namespace {

// The reference (the largest output) has the largest rank among the
// outputs; break points past it are refused by rejectParams anyway.
int64_t largestOutputRank(const ir::Fusion& segment) {
  int64_t rank = 0;
  for (const auto& out : segment.outputs()) {
    if (const auto* tv = out.val->as<ir::TensorView>()) {
      rank = std::max<int64_t>(rank, tv->logicalNoReductions().size());
    }
  }
  return rank;
}

}  // namespace

KnobGrid pointwiseGrid(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info,
                       const scheduler::PointwiseParams& defaults) {
  KnobGrid grid;
  std::vector<int64_t> breakPoints;
  for (int64_t b = 0; b < std::max<int64_t>(1, largestOutputRank(segment)); ++b) {
    breakPoints.push_back(b);
  }
  const bool twoD = breakPoints.size() > 1;
  grid.knobs = {
      {"vectorization_factor", {1, 2, 4, 8}},
      {"unroll_factor_inner", {1, 2, 4}},
      {"block_dim_x", {64, 128, 256, 512}},
      {"break_point", breakPoints},
      {"block_dim_y", twoD ? std::vector<int64_t>{1, 2, 4} : std::vector<int64_t>{1}},
      {"unroll_factor_outer", twoD ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{1}},
      {"flip_grid", twoD ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0}},
  };
  grid.defaultValues = {defaults.vectorizationFactor, defaults.unrollFactorInner,
                        defaults.blockDimX,           defaults.breakPoint,
                        defaults.blockDimY,           defaults.unrollFactorOuter,
                        defaults.flipGrid ? 1 : 0};
  grid.materialize = [defaults](const std::vector<int64_t>& v) {
    scheduler::PointwiseParams p = defaults;
    p.vectorizationFactor = v[0];
    p.unrollFactorInner = v[1];
    p.blockDimX = v[2];
    p.breakPoint = v[3];
    p.blockDimY = v[4];
    p.unrollFactorOuter = v[5];
    p.flipGrid = v[6] != 0;
    return scheduler::HeuristicParams(p);
  };
  grid.valueName = numericValueName;
  return grid;
}

KnobGrid transposeGrid(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info,
                       const scheduler::TransposeParams& defaults) {
  KnobGrid grid;
  grid.knobs = {
      {"tile_size_1", {32, 64}},
      {"tile_size_2", {32, 64}},
      {"vectorization_factor_1", {1, 2, 4, 8}},
      {"vectorization_factor_2", {1, 2, 4, 8}},
      {"block_dim", {64, 128, 256}},
  };
  grid.defaultValues = {defaults.tileSize1, defaults.tileSize2, defaults.vectorizationFactor1,
                        defaults.vectorizationFactor2, defaults.blockDim};
  grid.materialize = [defaults](const std::vector<int64_t>& v) {
    scheduler::TransposeParams p = defaults;
    p.tileSize1 = v[0];
    p.tileSize2 = v[1];
    p.vectorizationFactor1 = v[2];
    p.vectorizationFactor2 = v[3];
    p.blockDim = v[4];
    return scheduler::HeuristicParams(p);
  };
  grid.valueName = numericValueName;
  return grid;
}

}  // namespace fuserlab::tuner
