// ThreadCommunicator: the ranks of a run as threads of one process sharing a
// ThreadGroup; each collective is a rendezvous: every rank posts its buffer,
// waits until all have, reads what it needs, and waits again before
// returning, so no rank reuses a buffer another is still reading.
#pragma once

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/multidevice/communicator.h"

namespace fuserlab::runtime {

//! State shared by the `size` ranks of one run.
//! Sums `count` elements of `dtype` from `from` into `into` (host memory),
//! as NCCL's sum does: half and bfloat16 in float, rounded once per addition.
void sumInto(void* into, const void* from, size_t count, ir::DataType dtype);

class ThreadGroup {
 public:
  explicit ThreadGroup(int64_t size);
  int64_t size() const { return size_; }

  //! Posts `send` for `rank`, waits for all ranks, runs `read` with every
  //! rank's posted pointer, then waits until every rank has read. Throws
  //! UserError if a rank aborted.
  template <class Read>
  void rendezvous(int64_t rank, const void* send, Read&& read) {
    arrive(rank, send);
    try {
      read(posted_);
    } catch (const std::exception& e) {
      abort("rank " + std::to_string(rank) + ": " + e.what());
      throw;
    }
    leave();
  }
  void abort(const std::string& why);

 private:
  void arrive(int64_t rank, const void* send);
  void leave();
  void wait(std::unique_lock<std::mutex>& lock, int64_t generation);

  int64_t size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<const void*> posted_;
  int64_t arrived_ = 0;
  int64_t generation_ = 0;  // completed barriers
  std::string aborted_;
};

class ThreadCommunicator final : public multidevice::Communicator {
 public:
  ThreadCommunicator(std::shared_ptr<ThreadGroup> group, int64_t rank)
      : group_(std::move(group)), rank_(rank) {}

  int64_t rank() const override { return rank_; }
  int64_t size() const override { return group_->size(); }
  std::string backend() const override { return "threads"; }

  void allgather(const void* send, void* recv, size_t bytes) override;
  void allreduce(const void* send, void* recv, size_t count, ir::DataType dtype) override;
  void reduceScatter(const void* send, void* recv, size_t count, ir::DataType dtype) override;
  void broadcast(void* buffer, size_t bytes, int64_t root) override;
  void abort(const std::string& why) override { group_->abort(why); }

 private:
  std::shared_ptr<ThreadGroup> group_;
  int64_t rank_;
};

}  // namespace fuserlab::runtime
