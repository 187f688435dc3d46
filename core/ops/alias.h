// Meta-op builders: ops that only change how existing data is viewed
// (broadcast, expand, reshape, permute, squeeze, slice, set) plus pad and cat.
// They are the ops seed 001's bookending moves into kernel-free segments.
// Sizes and shapes are Scalars so they may be symbolic (`T0.size(1)`) and are
// evaluated at run time; constants are checked at build time.
#pragma once

#include <optional>
#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

using ir::Scalar;
using ir::TensorView;

//! Inserts size-1 Broadcast axes where `isBroadcastDim` is true; the number
//! of false entries must equal x's rank. With no true entry it returns x
//! itself, as nvFuser does.
TensorView* broadcast(TensorView* x, const std::vector<bool>& isBroadcastDim);

//! nvFuser's broadcast_in_dim: x's axis i becomes output axis
//! broadcastDims[i] (strictly increasing); other output axes are broadcast
//! and, where `shape` gives an extent other than 1, expanded to it. An input
//! axis of extent 1 whose output extent is larger is expanded too.
TensorView* broadcastInDim(TensorView* x, const std::vector<Scalar*>& shape,
                           const std::vector<int64_t>& broadcastDims);

//! Expands broadcast axes to `shape` (-1 keeps an axis); a non-broadcast
//! axis must keep its extent.
TensorView* expand(TensorView* x, const std::vector<Scalar*>& shape);

//! Reshape to `shape` (at most one -1, inferred). The output has a root
//! domain (x's axes) and a new logical domain; the element count must match.
TensorView* reshape(TensorView* x, const std::vector<Scalar*>& shape);

//! y axis i = x axis dims[i]; negative dims count from the end.
TensorView* permute(TensorView* x, const std::vector<int64_t>& dims);

//! Removes the given axes, which must be broadcast axes or have extent 1.
//! An expanded broadcast axis (stride 0, extent > 1) is removed only with
//! `squeezeExpanded`, as nvFuser's squeeze_expanded=True.
TensorView* squeeze(TensorView* x, const std::vector<int64_t>& dims, bool squeezeExpanded = false);

//! Per axis: [start, stop) with step (positive). Missing strides mean 1.
//! Constant bounds are clamped as Python slicing does.
TensorView* slice(TensorView* x, const std::vector<Scalar*>& starts,
                  const std::vector<Scalar*>& stops, const std::vector<Scalar*>& steps);

//! torch.nn.functional.pad order: `widths` = [left_last, right_last,
//! left_second_last, right_second_last, ...]; negative widths crop. `value`
//! null means zero.
TensorView* pad(TensorView* x, const std::vector<Scalar*>& widths, Scalar* value = nullptr);

//! Concatenates along `dim`; every other axis must agree.
TensorView* cat(const std::vector<TensorView*>& xs, int64_t dim);

//! A copy (nvFuser's set / LoadStoreOp).
TensorView* set(TensorView* x);
//! A copy that the segmenter must cut at.
TensorView* segmentSet(TensorView* x);
//! A copy whose allocation domain follows `strideOrder` (fd.ops.stride_order).
TensorView* strideOrder(TensorView* x, const std::vector<int64_t>& strideOrder);

}  // namespace fuserlab::ops
