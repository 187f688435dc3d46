// The copy kernel: what a kernel-free segment launches when a view cannot
// have the layout its tensor needs (a fusion output declared with another
// stride order, an intermediate a later kernel reads dense). It copies a
// strided tensor of any dtype element by element (as bytes of the element's
// size) into another of the same sizes.
#pragma once

#include <cstdint>

#include "core/codegen/kernel.h"

namespace fuserlab::runtime {

//! The kernel `fuserlab_copy_<bytes>b_r<rank>(fl::Tensor<U, R> in,
//! fl::Tensor<U, R> out)` for `elements` elements of `elementBytes` (1, 2,
//! 4 or 8) bytes each; its parameters name no segment value (the caller
//! binds them).
codegen::GeneratedKernel stridedCopyKernel(int64_t elementBytes, int rank, int64_t elements);

}  // namespace fuserlab::runtime
