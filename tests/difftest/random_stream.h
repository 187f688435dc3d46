// Rng: the differential tester's random stream, splitmix64, so a seed gives
// the same fusion on every platform and compiler (std's distributions do
// not promise that).
#pragma once

#include <cstdint>
#include <vector>

namespace fuserlab::difftest {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  //! Uniform in [0, n).
  int64_t below(int64_t n) {
    return n <= 1 ? 0 : static_cast<int64_t>(next() % static_cast<uint64_t>(n));
  }
  bool chance(int percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(below(static_cast<int64_t>(items.size())))];
  }

 private:
  uint64_t state_;
};

}  // namespace fuserlab::difftest
