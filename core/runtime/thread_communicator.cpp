#include "core/runtime/thread_communicator.h"

#include <cstring>

#include "core/ir/error.h"
#include "core/tensor/float16.h"

namespace fuserlab::runtime {
namespace {

template <class T>
void sumTyped(void* into, const void* from, size_t count) {
  auto* a = static_cast<T*>(into);
  const auto* b = static_cast<const T*>(from);
  for (size_t i = 0; i < count; ++i) a[i] = static_cast<T>(a[i] + b[i]);
}

// Half and bfloat16: summed in float, rounded once per addition.
template <class T>
void sumNarrow(void* into, const void* from, size_t count) {
  auto* a = static_cast<T*>(into);
  const auto* b = static_cast<const T*>(from);
  for (size_t i = 0; i < count; ++i) {
    a[i] = T::fromFloat(a[i].toFloat() + b[i].toFloat());
  }
}

}  // namespace

void sumInto(void* into, const void* from, size_t count, ir::DataType dtype) {
  switch (dtype) {
    case ir::DataType::Float: return sumTyped<float>(into, from, count);
    case ir::DataType::Double: return sumTyped<double>(into, from, count);
    case ir::DataType::Int32: return sumTyped<int32_t>(into, from, count);
    case ir::DataType::Int: return sumTyped<int64_t>(into, from, count);
    case ir::DataType::Half: return sumNarrow<Half>(into, from, count);
    case ir::DataType::BFloat16: return sumNarrow<BFloat16>(into, from, count);
    default:
      FL_USER_ERROR("summing ", ir::toString(dtype), " tensors across devices is not supported");
  }
}

ThreadGroup::ThreadGroup(int64_t size) : size_(size), posted_(static_cast<size_t>(size), nullptr) {
  FL_CHECK(size > 0, "a thread group needs at least one rank");
}

void ThreadGroup::wait(std::unique_lock<std::mutex>& lock, int64_t generation) {
  changed_.wait(lock, [&] { return generation_ > generation || !aborted_.empty(); });
  FL_CHECK(aborted_.empty(), "another rank failed: ", aborted_);
}

void ThreadGroup::arrive(int64_t rank, const void* send) {
  std::unique_lock<std::mutex> lock(mutex_);
  FL_CHECK(aborted_.empty(), "another rank failed: ", aborted_);
  posted_[static_cast<size_t>(rank)] = send;
  const int64_t generation = generation_;
  if (++arrived_ == size_) {
    arrived_ = 0;
    ++generation_;
    changed_.notify_all();
    return;
  }
  wait(lock, generation);
}

void ThreadGroup::leave() {
  std::unique_lock<std::mutex> lock(mutex_);
  const int64_t generation = generation_;
  if (++arrived_ == size_) {
    arrived_ = 0;
    ++generation_;
    changed_.notify_all();
    return;
  }
  wait(lock, generation);
}

void ThreadGroup::abort(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (aborted_.empty()) aborted_ = why.empty() ? "aborted" : why;
  changed_.notify_all();
}

void ThreadCommunicator::allgather(const void* send, void* recv, size_t bytes) {
  group_->rendezvous(rank_, send, [&](const std::vector<const void*>& all) {
    for (size_t r = 0; r < all.size(); ++r) {
      std::memcpy(static_cast<std::byte*>(recv) + r * bytes, all[r], bytes);
    }
  });
}

void ThreadCommunicator::allreduce(const void* send, void* recv, size_t count, ir::DataType dtype) {
  const size_t bytes = count * static_cast<size_t>(ir::sizeInBytes(dtype));
  // Every rank sums in rank order, so all get bit-identical results.
  std::vector<std::byte> sum(bytes);
  group_->rendezvous(rank_, send, [&](const std::vector<const void*>& all) {
    std::memcpy(sum.data(), all[0], bytes);
    for (size_t r = 1; r < all.size(); ++r) sumInto(sum.data(), all[r], count, dtype);
  });
  std::memcpy(recv, sum.data(), bytes);
}

void ThreadCommunicator::reduceScatter(const void* send, void* recv, size_t count,
                                       ir::DataType dtype) {
  const size_t bytes = count * static_cast<size_t>(ir::sizeInBytes(dtype));
  std::vector<std::byte> sum(bytes);
  group_->rendezvous(rank_, send, [&](const std::vector<const void*>& all) {
    const size_t offset = static_cast<size_t>(rank_) * bytes;
    std::memcpy(sum.data(), static_cast<const std::byte*>(all[0]) + offset, bytes);
    for (size_t r = 1; r < all.size(); ++r) {
      sumInto(sum.data(), static_cast<const std::byte*>(all[r]) + offset, count, dtype);
    }
  });
  std::memcpy(recv, sum.data(), bytes);
}

void ThreadCommunicator::broadcast(void* buffer, size_t bytes, int64_t root) {
  FL_CHECK(root >= 0 && root < size(), "broadcast from rank ", root, " of ", size());
  std::vector<std::byte> copy(bytes);
  group_->rendezvous(rank_, buffer, [&](const std::vector<const void*>& all) {
    std::memcpy(copy.data(), all[static_cast<size_t>(root)], bytes);
  });
  if (rank_ != root) std::memcpy(buffer, copy.data(), bytes);
}

}  // namespace fuserlab::runtime
