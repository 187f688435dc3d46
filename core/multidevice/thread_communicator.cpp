#include "core/multidevice/thread_communicator.h"

#include <cmath>
#include <cstring>

#include "core/ir/error.h"

namespace fuserlab::multidevice {
namespace {

float bf16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

uint16_t floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);                   // nearest even
  return static_cast<uint16_t>(bits >> 16);
}

// IEEE binary16 <-> float, written out (not every compiler has _Float16).
float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t bits = exponent == 31
                      ? sign | 0x7f800000u | (mantissa << 13)  // inf, NaN
                      : sign | ((exponent + 112u) << 23) | (mantissa << 13);
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint16_t floatToHalf(float value) {  // round to nearest even
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // rounds past 65504
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
    float scaled;
    std::memcpy(&scaled, &magnitude, sizeof(scaled));
    return static_cast<uint16_t>(
        sign | static_cast<uint32_t>(std::nearbyint(scaled * 16777216.0f)));
  }
  uint32_t h = ((((magnitude >> 23) - 112u) << 10) | ((magnitude & 0x7fffffu) >> 13));
  const uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

template <class T>
void sumTyped(void* into, const void* from, size_t count) {
  auto* a = static_cast<T*>(into);
  const auto* b = static_cast<const T*>(from);
  for (size_t i = 0; i < count; ++i) a[i] = static_cast<T>(a[i] + b[i]);
}

}  // namespace

void sumInto(void* into, const void* from, size_t count, ir::DataType dtype) {
  switch (dtype) {
    case ir::DataType::Float: return sumTyped<float>(into, from, count);
    case ir::DataType::Double: return sumTyped<double>(into, from, count);
    case ir::DataType::Int32: return sumTyped<int32_t>(into, from, count);
    case ir::DataType::Int: return sumTyped<int64_t>(into, from, count);
    case ir::DataType::Half: {
      auto* a = static_cast<uint16_t*>(into);
      const auto* b = static_cast<const uint16_t*>(from);
      for (size_t i = 0; i < count; ++i) {
        a[i] = floatToHalf(halfToFloat(a[i]) + halfToFloat(b[i]));
      }
      return;
    }
    case ir::DataType::BFloat16: {
      auto* a = static_cast<uint16_t*>(into);
      const auto* b = static_cast<const uint16_t*>(from);
      for (size_t i = 0; i < count; ++i) {
        a[i] = floatToBf16(bf16ToFloat(a[i]) + bf16ToFloat(b[i]));
      }
      return;
    }
    default:
      FL_USER_ERROR("summing ", ir::toString(dtype),
                    " tensors across devices is not supported");
  }
}

ThreadGroup::ThreadGroup(int64_t size)
    : size_(size), posted_(static_cast<size_t>(size), nullptr) {
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

void ThreadCommunicator::allreduce(const void* send, void* recv, size_t count,
                                   ir::DataType dtype) {
  const size_t bytes = count * static_cast<size_t>(ir::sizeInBytes(dtype));
  // Every rank sums in rank order, so all get bit-identical results.
  std::vector<std::byte> sum(bytes);
  group_->rendezvous(rank_, send, [&](const std::vector<const void*>& all) {
    std::memcpy(sum.data(), all[0], bytes);
    for (size_t r = 1; r < all.size(); ++r) sumInto(sum.data(), all[r], count, dtype);
  });
  std::memcpy(recv, sum.data(), bytes);
}

void ThreadCommunicator::reduceScatter(const void* send, void* recv,
                                       size_t count, ir::DataType dtype) {
  const size_t bytes = count * static_cast<size_t>(ir::sizeInBytes(dtype));
  std::vector<std::byte> sum(bytes);
  group_->rendezvous(rank_, send, [&](const std::vector<const void*>& all) {
    const size_t offset = static_cast<size_t>(rank_) * bytes;
    std::memcpy(sum.data(), static_cast<const std::byte*>(all[0]) + offset, bytes);
    for (size_t r = 1; r < all.size(); ++r) {
      sumInto(sum.data(), static_cast<const std::byte*>(all[r]) + offset, count,
              dtype);
    }
  });
  std::memcpy(recv, sum.data(), bytes);
}

void ThreadCommunicator::broadcast(void* buffer, size_t bytes, int64_t root) {
  FL_CHECK(root >= 0 && root < size(), "broadcast from rank ", root, " of ",
           size());
  std::vector<std::byte> copy(bytes);
  group_->rendezvous(rank_, buffer, [&](const std::vector<const void*>& all) {
    std::memcpy(copy.data(), all[static_cast<size_t>(root)], bytes);
  });
  if (rank_ != root) std::memcpy(buffer, copy.data(), bytes);
}

}  // namespace fuserlab::multidevice
