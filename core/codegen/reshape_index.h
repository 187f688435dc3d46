// Reshape indexing: a producer's index from its reshape consumer's, in the
// CUDA C a kernel computes per element. Both sides are row-major views of
// one sequence of elements, so the consumer's linear position decomposes
// over the producer's axes. Where both sides' extents are constants in the
// kernel, the axes fall into blocks whose extent products match (a GroupNorm's
// [N, C, H, W] against [N, G, C/G * H * W]: {N} | {C, H, W} against {N} |
// {G, C/G * H * W}); each block is linearized and decomposed on its own, an
// axis alone on both sides passes its index through, and a block whose
// product fits in 30 bits is computed in 32-bit arithmetic. The kernel's
// result is the same: a position's digits in one block do not depend on
// another block's (the full linearization divides by whole blocks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fuserlab::codegen {

//! One block: consumer axes [outBegin, outEnd) against producer axes
//! [inBegin, inEnd), their extents' products equal.
struct ReshapeBlock {
  size_t outBegin = 0, outEnd = 0;
  size_t inBegin = 0, inEnd = 0;
  int64_t elements = 1;
};

//! The blocks of a reshape from `inExtents` to `outExtents` (known constants),
//! or nullopt where the products never line up (they always do at the end
//! when the element counts are equal; an extent of 0 gives nullopt).
std::optional<std::vector<ReshapeBlock>> reshapeBlocks(const std::vector<int64_t>& outExtents,
                                                       const std::vector<int64_t>& inExtents);

//! The producer's index, one C expression per producer axis, from the
//! consumer's `outIndex`. `outExtents` / `inExtents` are the axes' extents as
//! the kernel writes them; where each is an integer literal the blocks above
//! are used, otherwise the consumer's whole linear position.
std::vector<std::string> reshapeProducerIndex(const std::vector<std::string>& outExtents,
                                              const std::vector<std::string>& inExtents,
                                              const std::vector<std::string>& outIndex);

//! A vectorized pass's view of the lanes: lane `lane` = `base` + j, j below
//! `width`, `base` a multiple of `width` (core/codegen/vector_lanes.h).
struct ReshapeLanes {
  std::string lane;
  std::string base;
  int64_t width = 1;
};

//! reshapeProducerIndex where the lane is the innermost consumer axis of a
//! block whose innermost extents on both sides are literal multiples of the
//! width: a vector's lanes then stay inside one run of the producer's
//! innermost axis of the block, so its other axes are the same for every
//! lane (computed at the base) and that axis is the lane plus a shift,
//! `innerTerm` - base, both multiples of the width. Nullopt where the lane
//! is not placed so.
struct LaneReshapeIndex {
  std::vector<std::string> index;  //!< all but the lane axis; that one is ""
  size_t laneAxis = 0;             //!< the producer axis the lane moves along
  std::string innerTerm;           //!< its value at the base (a multiple of the width)
};
std::optional<LaneReshapeIndex> reshapeProducerIndexInLanes(
    const std::vector<std::string>& outExtents, const std::vector<std::string>& inExtents,
    const std::vector<std::string>& outIndex, const ReshapeLanes& lanes);

//! The integer a kernel's extent text stands for: `(int64_t)320ll`,
//! `((int64_t)320ll /* i3 */)` or `320`; nullopt for anything computed.
std::optional<int64_t> integerLiteral(const std::string& text);

}  // namespace fuserlab::codegen
