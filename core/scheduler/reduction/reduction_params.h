// ReductionParams: the parameters of reduction and normalization (persistent)
// segments, in the spirit of nvFuser's ReductionParams. The same struct
// serves the reduction, inner_persistent and outer_persistent schedulers:
// `persistentKernel` and `fastestDimReduction` tell them apart.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/report/json.h"

namespace fuserlab::scheduler {

//! Where a persistent kernel keeps its rows between passes: registers,
//! shared memory, or nowhere (Reload: each pass reads the segment's inputs
//! again, from L2 where the block read them shortly before; the buffers are
//! recomputed from them, as projection does).
enum class PersistentStorage : uint8_t { Registers, SharedMemory, Reload };
std::string_view toString(PersistentStorage storage);

struct ReductionParams {
  static constexpr int kSchemaVersion = 1;

  //! True when the reduced axes are the innermost (contiguous) ones.
  bool fastestDimReduction = true;
  //! A persistent (normalization) kernel: each reduction row stays resident
  //! in registers or shared memory between the reduction and its use.
  bool persistentKernel = false;
  //! Recompute persistent buffers from the (narrower) inputs they are
  //! computed from instead of keeping them: e.g. keep the bf16 input of an
  //! upcast rather than its float result (seed 000).
  bool projectPersistentBuffers = false;
  PersistentStorage persistentStorage = PersistentStorage::Registers;

  //! Elements per vectorized access along the innermost axis.
  int64_t vectorizationFactor = 1;
  //! Persistent kernels: vectorized chunks of a row each thread keeps
  //! (the row is blockDimX * persistentBatchSize * vectorizationFactor).
  int64_t persistentBatchSize = 1;
  //! Unrolling along the reduction and the iteration (non-reduced) axes.
  int64_t unrollFactorReduction = 1;
  int64_t unrollFactorIteration = 1;
  //! Threads along the reduction (x) and iteration (y) axes of a block.
  int64_t blockDimX = 128;
  int64_t blockDimY = 1;
  //! Blocks along the iteration axis; along the reduction axis when the
  //! reduction is split across blocks (`crossGridReduction`).
  int64_t gridDimX = 1;
  int64_t gridDimY = 1;
  //! The reduction spans several warps of a block / several blocks.
  bool crossBlockReduction = false;
  bool crossGridReduction = false;
  //! sm_90 and later, outer reduction kernels: the grid_dim_y blocks that
  //! split a reduction form one thread-block cluster and add their partials
  //! from each other's shared memory (distributed shared memory), instead
  //! of a global workspace, a fence and a semaphore. At most the device's
  //! maxClusterBlocks (launch_shape.h): 8 on every sm_90+ GPU, 16 on an
  //! H100 or H200.
  bool clusterReduction = false;
  //! Registers per thread the kernel is compiled for (0: no cap).
  int64_t registerCap = 0;
  bool useInt32Indexing = true;

  std::string toString() const;
  report::Json toJson() const;
  static ReductionParams fromJson(const report::Json& json);
  uint64_t hash() const;
  bool operator==(const ReductionParams&) const = default;
};

//! Whether a kernel of `params` may shift its rows (an inner persistent
//! kernel keeping its rows in registers, or reading them again each pass): a vectorization factor
//! that does not divide the row length then starts each row's chunks at its first aligned element
//! (codegen::RowLayout::shiftedRows).
inline bool shiftsRows(const ReductionParams& params) {
  return params.persistentKernel && params.fastestDimReduction &&
         params.persistentStorage != PersistentStorage::SharedMemory;
}

//! The most elements of a shifted row outside its aligned chunks of
//! `vectorize` (head and tail): one thread each, so block_dim_x must reach it.
inline int64_t shiftedRowExtraElements(int64_t vectorize) { return 2 * vectorize - 2; }

//! The chunks of `vectorize` elements a block's threads hold for each row of
//! `rowLength` elements: every chunk, the last one partial, or for shifted
//! rows (`shifted`, the factor not dividing the length) only the whole
//! aligned ones, at most rowLength / vectorize (a row whose head is empty);
//! the head and tail elements go one per thread.
inline int64_t rowChunks(int64_t rowLength, int64_t vectorize, bool shifted) {
  const int64_t v = vectorize < 1 ? 1 : vectorize;
  return shifted && rowLength % v != 0 ? rowLength / v : (rowLength + v - 1) / v;
}

}  // namespace fuserlab::scheduler
