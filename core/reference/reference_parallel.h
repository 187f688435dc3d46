// Splitting a reference loop of independent pieces over threads. The
// reference is the oracle every GPU result is checked against, so a split
// loop must give the same bits as one thread: only loops whose pieces are
// independent (each output element computed from its inputs alone) use it,
// never a reduction's accumulation order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace fuserlab::runtime::reference {

//! Elements a thread takes at least, so that starting it costs little
//! against its share.
inline constexpr int64_t kMinElementsPerThread = 131072;

//! The threads a reference loop may use: FUSERLAB_REFERENCE_THREADS when set
//! (1: the calling thread only), else the machine's hardware threads, at
//! most 32.
int referenceThreads();

//! Calls body(first, last) over [0, count) in contiguous ranges of at least
//! `minPerThread` pieces, one range per thread (the calling thread takes
//! the first). An exception from a range is rethrown once every range has
//! ended: the lowest range's, which a single thread would have met first.
template <class Body>
void parallelRanges(int64_t count, int64_t minPerThread, const Body& body) {
  const int64_t threads =
      std::min<int64_t>(referenceThreads(), count / std::max<int64_t>(1, minPerThread));
  if (threads <= 1) {
    body(int64_t{0}, count);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  auto range = [&](int64_t t) {
    try {
      body(count * t / threads, count * (t + 1) / threads);
    } catch (...) {
      errors[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(threads - 1));
  for (int64_t t = 1; t < threads; ++t) workers.emplace_back(range, t);
  range(0);
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace fuserlab::runtime::reference
