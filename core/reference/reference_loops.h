// The strided loops under the CPU reference executor (internal).
//
// Every op of the reference reads its operands through (sizes, strides)
// layouts: views, broadcasts (stride 0) and expanded inputs alike. A
// StridedLoop is such a layout with adjacent dimensions merged where the
// strides allow it, so a contiguous operand becomes one run of stride 1 and a
// broadcast scalar one run of stride 0. Loops walk the row-major element order
// of the logical shape in runs along the innermost dimension; the type
// dispatch happens once per call, never per element.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/ir/data_type.h"
#include "core/reference/reference_parallel.h"
#include "core/tensor/element_type.h"
#include "core/tensor/tensor.h"

namespace fuserlab::runtime::reference {

//! Calls `visit(TypeTag<T>{})` for a compute dtype: float for Float, double
//! for Double, int64_t for Int (see computeDtype).
template <class Visit>
decltype(auto) dispatchComputeType(ir::DataType dtype, Visit&& visit) {
  switch (dtype) {
    case ir::DataType::Float: return visit(TypeTag<float>{});
    case ir::DataType::Double: return visit(TypeTag<double>{});
    case ir::DataType::Int: return visit(TypeTag<int64_t>{});
    default: break;
  }
  FL_ASSERT(false, "no compute type for ", ir::toString(dtype));
  return visit(TypeTag<float>{});
}

//! One operand's layout over a row-major iteration space, with size-1
//! dimensions dropped and mergeable neighbours merged. Never rank 0: a single
//! element is sizes {1}, strides {0}.
struct StridedLoop {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;

  //! One run of stride 1 covering everything.
  bool isContiguous() const { return sizes.size() == 1 && strides[0] == 1; }
};

//! The collapsed form of (sizes, strides); the row-major order of the
//! elements is unchanged by the collapse.
inline StridedLoop collapseLoop(const std::vector<int64_t>& sizes,
                                const std::vector<int64_t>& strides) {
  StridedLoop loop;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (!loop.sizes.empty() && loop.strides.back() == strides[d] * sizes[d]) {
      loop.sizes.back() *= sizes[d];
      loop.strides.back() = strides[d];
      continue;
    }
    loop.sizes.push_back(sizes[d]);
    loop.strides.push_back(strides[d]);
  }
  if (loop.sizes.empty()) {
    loop.sizes = {1};
    loop.strides = {0};
  }
  return loop;
}

inline StridedLoop collapseLoop(const Tensor& tensor) {
  return collapseLoop(tensor.sizes(), tensor.strides());
}

//! Calls `run(offset, count)` for the runs that cover the row-major element
//! range [begin, end) of `loop`: `count` elements starting at element offset
//! `offset`, spaced by the innermost stride.
template <class Run>
void forEachRun(const StridedLoop& loop, int64_t begin, int64_t end, Run&& run) {
  if (begin >= end) return;
  const size_t rank = loop.sizes.size();
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  int64_t rest = begin;
  for (size_t d = rank; d-- > 0;) {
    index[d] = rest % loop.sizes[d];
    rest /= loop.sizes[d];
    offset += index[d] * loop.strides[d];
  }
  const size_t inner = rank - 1;
  for (int64_t position = begin; position < end;) {
    const int64_t count = std::min(end - position, loop.sizes[inner] - index[inner]);
    run(offset, count);
    position += count;
    index[inner] += count;
    offset += count * loop.strides[inner];
    // Carry into the outer dimensions.
    for (size_t d = inner; d > 0 && index[d] == loop.sizes[d]; --d) {
      offset -= index[d] * loop.strides[d];
      index[d] = 0;
      ++index[d - 1];
      offset += loop.strides[d - 1];
    }
  }
}

//! Converts `count` elements spaced by `srcStride` into `dst` (spaced by
//! `dstStride`) with castElement's rounding.
template <class Dst, class Src>
void convertRun(const Src* src, int64_t srcStride, Dst* dst, int64_t dstStride, int64_t count) {
  if (srcStride == 1 && dstStride == 1) {
    for (int64_t i = 0; i < count; ++i) dst[i] = castElement<Dst>(src[i]);
  } else if (srcStride == 0) {
    const Dst value = castElement<Dst>(src[0]);
    for (int64_t i = 0; i < count; ++i) dst[i * dstStride] = value;
  } else {
    for (int64_t i = 0; i < count; ++i) {
      dst[i * dstStride] = castElement<Dst>(src[i * srcStride]);
    }
  }
}

//! Reads the row-major elements [begin, begin + count) of a strided operand
//! into the contiguous `dst`, converting Src to Dst.
template <class Dst, class Src>
void gatherRange(const Src* src, const StridedLoop& loop, int64_t begin, int64_t count, Dst* dst) {
  const int64_t innerStride = loop.strides.back();
  forEachRun(loop, begin, begin + count, [&](int64_t offset, int64_t n) {
    convertRun(src + offset, innerStride, dst, 1, n);
    dst += n;
  });
}

//! Two layouts over one shape, collapsed together: a dimension merges into
//! its outer neighbour only where both layouts allow it.
struct PairedLoop {
  std::vector<int64_t> sizes;
  std::vector<int64_t> firstStrides;
  std::vector<int64_t> secondStrides;
};

inline PairedLoop collapsePair(const std::vector<int64_t>& sizes, const std::vector<int64_t>& first,
                               const std::vector<int64_t>& second) {
  PairedLoop loop;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (!loop.sizes.empty() && loop.firstStrides.back() == first[d] * sizes[d] &&
        loop.secondStrides.back() == second[d] * sizes[d]) {
      loop.sizes.back() *= sizes[d];
      loop.firstStrides.back() = first[d];
      loop.secondStrides.back() = second[d];
      continue;
    }
    loop.sizes.push_back(sizes[d]);
    loop.firstStrides.push_back(first[d]);
    loop.secondStrides.push_back(second[d]);
  }
  if (loop.sizes.empty()) {
    loop.sizes = {1};
    loop.firstStrides = {0};
    loop.secondStrides = {0};
  }
  return loop;
}

//! Calls `run(firstOffset, secondOffset, count)` for every innermost run of
//! `loop`, in row-major order.
template <class Run>
void forEachPairedRun(const PairedLoop& loop, Run&& run) {
  for (int64_t size : loop.sizes) {
    if (size == 0) return;
  }
  const size_t inner = loop.sizes.size() - 1;
  std::vector<int64_t> index(inner + 1, 0);
  int64_t first = 0;
  int64_t second = 0;
  while (true) {
    run(first, second, loop.sizes[inner]);
    size_t d = inner;
    while (true) {
      if (d == 0) return;
      --d;
      ++index[d];
      first += loop.firstStrides[d];
      second += loop.secondStrides[d];
      if (index[d] < loop.sizes[d]) break;
      first -= index[d] * loop.firstStrides[d];
      second -= index[d] * loop.secondStrides[d];
      index[d] = 0;
    }
  }
}

//! Copies `src` into `dst` element by element (equal sizes, any strides and
//! dtypes), converting with castElement. `dst` must not overlap `src`.
inline void convertInto(const Tensor& src, const Tensor& dst) {
  FL_ASSERT(src.sizes() == dst.sizes(), "convertInto between ", src.toString(), " and ",
            dst.toString());
  if (src.numel() == 0) return;
  dispatchElementType(dst.dtype(), [&]<class Dst>(TypeTag<Dst>) {
    dispatchElementType(src.dtype(), [&]<class Src>(TypeTag<Src>) {
      Dst* out = dst.dataAs<Dst>();
      const Src* in = src.dataAs<Src>();
      const PairedLoop loop = collapsePair(src.sizes(), src.strides(), dst.strides());
      const int64_t srcStride = loop.firstStrides.back();
      const int64_t dstStride = loop.secondStrides.back();
      // Ranges of the outermost dimension (of the one run, when the copy is
      // one) on threads: each element is converted once, as on one thread.
      const int64_t outer = loop.sizes[0];
      if (loop.sizes.size() == 1) {
        parallelRanges(outer, kMinElementsPerThread, [&](int64_t first, int64_t last) {
          convertRun(in + first * srcStride, srcStride, out + first * dstStride, dstStride,
                     last - first);
        });
        return;
      }
      const int64_t perOuter = std::max<int64_t>(1, src.numel() / outer);
      parallelRanges(
          outer, std::max<int64_t>(1, kMinElementsPerThread / perOuter),
          [&](int64_t first, int64_t last) {
            PairedLoop part = loop;
            part.sizes[0] = last - first;
            const Src* partIn = in + first * loop.firstStrides[0];
            Dst* partOut = out + first * loop.secondStrides[0];
            forEachPairedRun(part, [&](int64_t srcOffset, int64_t dstOffset, int64_t count) {
              convertRun(partIn + srcOffset, srcStride, partOut + dstOffset, dstStride, count);
            });
          });
    });
  });
}

//! A contiguous copy of `src` converted to `dtype`.
inline Tensor convertContiguous(const Tensor& src, ir::DataType dtype) {
  Tensor out = Tensor::empty(dtype, src.sizes());
  convertInto(src, out);
  return out;
}

//! `src` itself when it is contiguous and already of `dtype`, else a
//! contiguous converted copy.
inline Tensor asContiguous(const Tensor& src, ir::DataType dtype) {
  if (src.dtype() == dtype && src.isContiguous()) return src;
  return convertContiguous(src, dtype);
}

}  // namespace fuserlab::runtime::reference
