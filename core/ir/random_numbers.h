// The numbers a random op (uniform, normal, rand_like, randn_like) produces:
// nvFuser's counter-based Philox4x32-10 generator and its distributions
// (nvFuser runtime/random_numbers.cu), written once for both executors, in
// random_numbers.inc. The CPU reference includes this header, which includes
// it as C++; the code generator embeds its text verbatim in the device header,
// where NVRTC compiles it as device code (core/codegen/CMakeLists.txt
// generates that copy). The same text on both sides is what lets
// `run --backend cuda --check` compare random tensors exactly.
//
// Element `index` of a random tensor (its linear index in the tensor's
// logical, row-major shape) takes Philox's block
//     philox(key = seed, counter = {offset lo, offset hi, subsequence lo, hi})
// with subsequence = index / 4 and the 32-bit word index % 4 (index / 2 and
// two words per element for Double), exactly as nvFuser's lowering does, so
// uniform values match nvFuser's bit for bit.
//
// Bit-exactness rests on every floating-point step being the same IEEE
// operation on both sides: no contraction of a * b + c into an FMA behind our
// back (the device side calls the _rn intrinsics, which NVCC never contracts;
// the host is compiled as ISO C++, where GCC does not contract), explicit
// fma() where one is meant, and no libm: log, sin and cos are computed here
// from +, -, *, / and sqrt (which IEEE rounds exactly on both) in double, so
// normal() differs from nvFuser's logf/sinf/cosf in the last bit or so, never
// between the CPU and the GPU. The float paths of normal() compute in double
// and round once.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

#include "core/ir/random_numbers.inc"
