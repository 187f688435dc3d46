// RowLayout: how the reduction-family kernels (reduction, inner_persistent,
// outer_persistent) address a segment. They walk the reference tensor (the
// first reduction's input) as a matrix of `rows` x `rowLength`: the row index
// r runs over its kept (iteration) axes and the element index j over its
// reduced axes, both flattened in the reference's allocation order with the
// innermost axis fastest. Every tensor input and output of the segment is
// traced to the reference's axes (scheduler::AxisTrace: permute, broadcast,
// expand, squeeze and reshape included), so its element offset at (r, j) is
// a sum of terms ((index / divisor) % modulus) * coefficient in r and in j,
// with the tensor's strides folded into the coefficients.
//
// The kernel vectorizes along one index (j for an inner reduction, r for an
// outer one): each thread takes chunks of `vectorize` consecutive indices.
// Per tensor, `access` says how a chunk is read or written: one aligned
// vector access, one element for the whole chunk (the tensor does not move
// within it), or element by element.
//
// Kernels are generated for the sizes, strides and alignments of `info`
// (the runtime keys compiled kernels by them), so extents and strides are
// compile-time constants of the generated code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

//! ((index / divisor) % modulus) * coefficient; modulus 0 means none (the
//! quotient never reaches it).
struct IndexTerm {
  int64_t divisor = 1;
  int64_t modulus = 0;
  int64_t coefficient = 1;
};

//! The C++ expression of the sum of `terms` at index `index` (an expression
//! of type index_t); "0" for no terms.
std::string indexExpression(const std::vector<IndexTerm>& terms, const std::string& index);
//! The C++ condition that every guard term's digit of `index` is 0; empty
//! when there are none.
std::string guardExpression(const std::vector<IndexTerm>& guards, const std::string& index);

//! How a chunk of the vectorized index reaches a tensor.
enum class ChunkAccess : uint8_t {
  Vector,     //!< one aligned access of `vectorize` elements
  Invariant,  //!< the tensor does not move within a chunk: one element
  Elements,   //!< element by element
};

struct TensorAccess {
  const ir::TensorView* tv = nullptr;
  std::vector<IndexTerm> rowTerms;      //!< in the row index r
  std::vector<IndexTerm> elementTerms;  //!< in the element index j
  //! For outputs: digits of r / j along reference axes the tensor does not
  //! move on; only the index whose digits are all 0 writes (the others would
  //! write the same element again).
  std::vector<IndexTerm> rowGuards;
  std::vector<IndexTerm> elementGuards;
  ChunkAccess access = ChunkAccess::Elements;
  int64_t alignmentBytes = 256;

  bool movesAlongElements() const { return !elementTerms.empty(); }
};

//! The logical coordinates of a tensor at (r, j): per logical axis, the sum
//! of its row and element terms (coefficients are index steps, not strides).
struct TensorCoordinates {
  const ir::TensorView* tv = nullptr;
  std::vector<std::vector<IndexTerm>> rowTerms;      //!< per logical axis
  std::vector<std::vector<IndexTerm>> elementTerms;  //!< per logical axis
};

//! Whether the kernel reads the segment input `tv`: some expr of the
//! segment uses it, or it is an output. An input read only for its extents
//! (`shape=T1.shape()`; they are constants of the generated code) or not at
//! all is bound but never indexed, so it has no TensorAccess. The same rule
//! as scheduler::inputsAndOutputs, whose tensors the schedulers' checks
//! (rejectUntracedTensors) require to follow the reference.
bool readByKernel(const ir::Fusion& segment, const ir::TensorView* tv);

struct RowLayout {
  //! True for an inner reduction (vectorized along j), false for an outer
  //! one (vectorized along r).
  bool inner = true;
  int64_t rows = 1;       //!< iteration extent
  int64_t rowLength = 1;  //!< reduction extent
  int64_t vectorize = 1;
  //! Rows whose length `vectorize` does not divide (inner persistent kernels
  //! only): each row r starts its chunks at its first element whose offset
  //! is a multiple of `vectorize`, head(r) = (-r * rowLength) mod vectorize,
  //! so chunks of every row are aligned; the head's elements and the tail
  //! past the last whole chunk are read and written one by one. A tensor is
  //! read by vectors only where its offset at (r, head(r)) is a multiple of
  //! `vectorize` for every r (it is laid out as rows of rowLength).
  bool shiftedRows = false;
  //! Every tensor input the kernel reads (readByKernel; CPU scalars
  //! excluded) and every output, each once.
  std::vector<TensorAccess> tensors;
  //! Outputs that are also segment inputs (an identity op of an input, a
  //! fusion output, simplified away): written into their own new buffer,
  //! dense in allocation order, not with the input's strides.
  std::vector<TensorAccess> passThroughOutputs;

  //! Coordinates of every tensor of the segment the trace reaches.
  std::vector<TensorCoordinates> coordinates;

  //! The access of `tv`; FL_ASSERTs that it is an input or output.
  const TensorAccess& access(const ir::TensorView* tv) const;
  //! The access an output of the segment is written through: its own for a
  //! pass-through output, else access(tv).
  const TensorAccess& outputAccess(const ir::TensorView* tv) const;
  //! The coordinates of `tv`; nullptr if the trace does not reach it.
  const TensorCoordinates* coordinatesOf(const ir::TensorView* tv) const;
  //! Extent of the vectorized index (rowLength or rows).
  int64_t vectorizedIndexExtent() const { return inner ? rowLength : rows; }
};

//! The layout of `segment` whose reductions follow `pattern`, vectorized by
//! `vectorize`. UserError naming the tensor for what the kernels cannot
//! address: slices, pads, gathers, allocation domains that are not
//! permutations, axes the trace loses, a vectorization factor that does not
//! divide the vectorized extent (unless `allowShiftedRows` and the reduction
//! is an inner one: then the rows are shifted, RowLayout::shiftedRows).
RowLayout buildRowLayout(const ir::Fusion& segment, const scheduler::ReductionPattern& pattern,
                         const scheduler::SegmentRuntimeInfo& info, int64_t vectorize,
                         bool allowShiftedRows = false);

}  // namespace fuserlab::codegen
