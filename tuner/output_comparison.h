// Output comparison on the GPU: a variant's outputs checked against the
// default variant's, which the worker verified against the CPU reference and
// keeps on the GPU, so a variant costs no device-to-host copy and no host
// loop over its outputs. One small kernel per dtype and rank, compiled with
// NVRTC and loaded once per worker, applies result_check.h's rule element by
// element: |actual - expected| <= atol + rtol * |expected| for floating
// dtypes (infinities equal, NaN where and only where the default has NaN);
// integers and bool bit for bit (bool as its byte, so a poisoned 0x7f is not
// taken for true). Mismatches are counted with atomics, and the first one
// (lowest row-major position) is read back with both values for the message.
//
// Soundness: the default matched the reference within the tolerance T, and
// the variant matches the default within T, so the variant is within 2T of
// the reference. Two GPU kernels keep float intermediates and differ by
// rounding order only, far inside T; a wrong kernel (a bad index, a missed
// element left poisoned) is off by far more than 2T and is rejected.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <utility>

#include "core/codegen/kernel.h"
#include "core/cuda/cuda_memory.h"
#include "core/scheduler/device_spec.h"
#include "core/tensor/result_check.h"

namespace fuserlab::runtime {
class CudaModule;
}

namespace fuserlab::tuner {

//! Whether outputs of `dtype` can be compared on the GPU (every dtype of
//! ir::DataType but Null).
bool comparableOnDevice(ir::DataType dtype);

//! The source of the comparison kernels for `dtype` and `rank`: one named
//! comparisonKernelName(dtype, rank) (actual, expected, rtol, atol,
//! counters) counting mismatches into counters[0] and the first mismatch's
//! row-major position into counters[1] (atomicMin), and one named with
//! "_max_abs" (expected, counters) putting the largest finite |expected|
//! into counters[2] (atomicMax on the bits of a non-negative double).
codegen::GeneratedKernel comparisonKernels(ir::DataType dtype, int rank);
std::string comparisonKernelName(ir::DataType dtype, int rank);

//! Compares device tensors on one GPU, with kernels built on first use.
class DeviceComparer {
 public:
  DeviceComparer(const scheduler::DeviceSpec& spec, int device);
  ~DeviceComparer();
  DeviceComparer(const DeviceComparer&) = delete;
  DeviceComparer& operator=(const DeviceComparer&) = delete;

  //! The largest finite |value| of device tensor `tensor` (0 for an exact
  //! dtype): the tolerance's atolOfMax scales with it.
  double maxAbs(const runtime::Tensor& tensor);

  //! Compares device tensors `actual` and `expected` (the default's output;
  //! `expectedMaxAbs` its maxAbs) as checkTensor does, with `tolerance`.
  //! The message names the output and, on failure, the first mismatch.
  runtime::TensorCheck compare(const runtime::Tensor& actual, const runtime::Tensor& expected,
                               std::string_view name, const runtime::Tolerance& tolerance,
                               double expectedMaxAbs);

 private:
  struct Loaded;
  Loaded& kernelsFor(ir::DataType dtype, int rank);
  void resetCounters(uint64_t mismatchStart);
  void readCounters(uint64_t counters[3]);

  scheduler::DeviceSpec spec_;
  int device_;
  // Keyed by (dtype, rank): looked up, never iterated for output.
  std::map<std::pair<int, int>, std::unique_ptr<Loaded>> kernels_;
  runtime::DeviceBuffer counters_;
};

}  // namespace fuserlab::tuner
