// NcclCommunicator: the Communicator of one process per GPU. Collectives run
// through NCCL on a stream of their own: the host buffers are staged into
// device buffers (reused across calls), the collective is enqueued, the
// stream synchronized and the result copied back. libnccl is opened with
// dlopen at first use (FUSERLAB_NCCL_LIBRARY, else libnccl.so.2 from the
// loader path, the CUDA toolkit, or PyTorch's nvidia-nccl wheel), so no
// binary needs NCCL to start.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "core/multidevice/communicator.h"

namespace fuserlab::runtime {

//! NCCL's 128-byte unique id: made by one process, handed to every rank.
using NcclId = std::array<char, 128>;

//! A fresh id (ncclGetUniqueId). UserError if libnccl cannot be loaded.
NcclId ncclNewId();
//! As hex text (for a command line) and back.
std::string ncclIdToHex(const NcclId& id);
NcclId ncclIdFromHex(const std::string& hex);

//! Why NCCL is unavailable on this machine, empty if it loads.
std::string ncclUnavailableReason();

class NcclCommunicator final : public multidevice::Communicator {
 public:
  //! Rank `rank` of `size` on GPU `device` (made current), joining the
  //! communicator `id` names; returns once every rank has joined.
  NcclCommunicator(const NcclId& id, int64_t size, int64_t rank, int device);
  ~NcclCommunicator() override;

  int64_t rank() const override { return rank_; }
  int64_t size() const override { return size_; }
  std::string backend() const override { return "nccl"; }

  void allgather(const void* send, void* recv, size_t bytes) override;
  void allreduce(const void* send, void* recv, size_t count, ir::DataType dtype) override;
  void reduceScatter(const void* send, void* recv, size_t count, ir::DataType dtype) override;
  void broadcast(void* buffer, size_t bytes, int64_t root) override;
  void abort(const std::string& why) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
  int64_t size_;
  int64_t rank_;
};

}  // namespace fuserlab::runtime
