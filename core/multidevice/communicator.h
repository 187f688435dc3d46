// Communicator: the collectives a multi-device run needs, between the ranks
// of one run (rank k drives device k of the mesh). Buffers are host memory,
// contiguous, `bytes` or `count` elements of `dtype` per rank; reductions
// sum. Implementations, in core/runtime: ThreadCommunicator (ranks as threads
// of one process, the CPU path CI runs; thread_communicator.h) and
// NcclCommunicator (one process per GPU, NCCL on device buffers;
// nccl_communicator.h).
//
// Every rank calls the same collectives in the same order; a rank that
// fails calls abort(), which makes the others' pending and later calls
// throw instead of waiting forever.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/ir/data_type.h"

namespace fuserlab::multidevice {

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int64_t rank() const = 0;
  virtual int64_t size() const = 0;
  //! "threads", "nccl".
  virtual std::string backend() const = 0;

  //! recv (size() * bytes) = rank 0's send, rank 1's send, ...
  virtual void allgather(const void* send, void* recv, size_t bytes) = 0;
  //! recv (count) = the sum over ranks of send (count).
  virtual void allreduce(const void* send, void* recv, size_t count, ir::DataType dtype) = 0;
  //! recv (count) = block rank() of the sum over ranks of send (size() * count).
  virtual void reduceScatter(const void* send, void* recv, size_t count, ir::DataType dtype) = 0;
  //! buffer (bytes) on every rank = root's.
  virtual void broadcast(void* buffer, size_t bytes, int64_t root) = 0;

  //! Tells the other ranks this one failed (with `why`).
  virtual void abort(const std::string& why) = 0;
};

}  // namespace fuserlab::multidevice
