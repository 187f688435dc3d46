// NumPy .npy files: the interchange format between FuserLab, PyTorch scripts
// and the GUI's tensor viewer.
//
// Written files are format version 1.0, little-endian, C order; Half and
// BFloat16 are widened to float32 (exactly), Bool is '|b1'. Reading accepts
// versions 1.0-3.0 with descr <f2 <f4 <f8 <i4 <i8 |b1 in C or Fortran order and
// always returns a contiguous (C order) CPU tensor. A malformed, truncated or
// unsupported file is a UserError naming the file, never a crash; so is a
// path that is not a regular file (a named pipe, a device, a directory),
// refused before it is opened.
#pragma once

#include <string>

#include "core/tensor/tensor.h"

namespace fuserlab::runtime {

//! Writes `tensor` (a CPU tensor, any layout) to `path` in logical C order.
void writeNpy(const std::string& path, const Tensor& tensor);

//! Reads a .npy file into a new contiguous CPU tensor.
Tensor readNpy(const std::string& path);

}  // namespace fuserlab::runtime
