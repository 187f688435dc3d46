// cuBLASLt matmuls: one strided-batched product D = epilogue(A @ B [+ bias])
// per call, fp32 accumulation (CUBLAS_COMPUTE_32F) for bf16, half and float
// operands, the algorithm from cublasLtMatmulAlgoGetHeuristic, and the
// workspace owned here: one buffer per device, grown on demand. Row-major
// operands of any strides with a unit stride along one axis map onto
// cuBLASLt's column-major descriptors with transposes; a row-major D is
// computed as D^T = B^T A^T, so the bias runs along D's columns (the output
// features), as torch's linear has it.
//
// The library is loaded with the binary (libcublasLt.so needs no GPU driver
// to load); a handle is created per device on first use.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/data_type.h"

namespace fuserlab::runtime {

//! A batch of matrices in device memory: element (r, c) of matrix b is at
//! data + (b * batchStride + r * rowStride + c * colStride) elements.
struct StridedMatrix {
  const void* data = nullptr;
  ir::DataType dtype = ir::DataType::Float;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t rowStride = 0;
  int64_t colStride = 0;
  int64_t batchStride = 0;  //!< 0: the same matrix for every batch
};

//! Batch axes outside a call's strided batch (no single stride walks them
//! with the inner ones in all of A, B and D): one call per index, at these
//! element strides. Empty for one call.
struct OuterBatch {
  std::vector<int64_t> sizes;
  std::vector<int64_t> aStrides, bStrides, dStrides;
};

//! D[b] = epilogue(A[b] @ B[b] + bias) for b in [0, batch).
struct MatmulCall {
  StridedMatrix a;  //!< [M, K]
  StridedMatrix b;  //!< [K, N]
  StridedMatrix d;  //!< [M, N]; written
  int64_t batch = 1;
  //! "none", "BIAS", "RELU", "RELU_BIAS", "GELU" or "GELU_BIAS".
  std::string epilogue = "none";
  //! N contiguous elements (for the BIAS epilogues), shared by every batch.
  const void* bias = nullptr;
  ir::DataType biasDtype = ir::DataType::Float;
  //! Which of the heuristic's answers to use (0: its best).
  int heuristicIndex = 0;
  //! Set by matmulCallFor where the batch needs several calls
  //! (splitOuterBatch, core/runtime/matmul_call.h); CublasLtMatmul takes
  //! calls without it.
  OuterBatch outer;
};

//! One planned cuBLASLt call: descriptors built and the algorithm chosen
//! for these pointers, sizes and strides; run() launches it.
class CublasLtMatmul {
 public:
  //! Builds the descriptors and asks the heuristic. A layout cuBLASLt cannot
  //! read (no unit stride on either axis of a matrix, a column-major D with
  //! a bias) or a combination it has no algorithm for is a UserError naming
  //! `what`. Needs a GPU.
  CublasLtMatmul(const MatmulCall& call, int device, const std::string& what);
  ~CublasLtMatmul();
  CublasLtMatmul(const CublasLtMatmul&) = delete;
  CublasLtMatmul& operator=(const CublasLtMatmul&) = delete;

  //! Launches the call on `stream` (a cudaStream_t; null: the legacy default
  //! stream), asynchronous.
  void run(void* stream = nullptr) const;
  //! The device workspace run() hands cuBLASLt (shared by the device's
  //! calls, reallocated when a call needs more): a CUDA graph that captured
  //! the call holds it.
  const void* workspace() const;

  //! The device pointers the call reads and writes: A, B, D and the bias
  //! (null without one), in this order.
  std::array<const void*, 4> pointers() const {
    return {call_.a.data, call_.b.data, call_.d.data, call_.bias};
  }
  //! Points the planned call at other buffers (pointers() order) of the same
  //! sizes, strides and alignment, keeping its descriptors and algorithm: a
  //! replayed plan's. The bias pointer must be null exactly where it was.
  void setPointers(const std::array<const void*, 4>& pointers);

  //! "heuristic 0 of 8: algo id 21, tile 18, stages 20, split-k 1,
  //! workspace 0 bytes": what the report's params name as `algo`.
  const std::string& algoDescription() const { return algo_; }

 private:
  struct Descriptors;
  std::unique_ptr<Descriptors> descriptors_;
  MatmulCall call_;
  int device_ = 0;
  std::string what_;
  std::string algo_;
};

//! The cuBLASLt version (cublasLtGetVersion), e.g. "13.0.0"; needs no GPU.
std::string cublasLtVersionString();

}  // namespace fuserlab::runtime
