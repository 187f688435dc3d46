// StableHasher: a 64-bit hash that is the same on every run, build and
// platform (the heuristics database stores it): integers are mixed a word
// at a time, strings as their length and then 8 bytes at a time read
// little-endian. Not cryptographic; fast enough to key every segment the
// compiler schedules.
#pragma once

#include <cstdint>
#include <string_view>

namespace fuserlab::db {

class StableHasher {
 public:
  //! `tag` separates uses: the same values under another tag hash apart.
  explicit StableHasher(std::string_view tag) { add(tag); }

  StableHasher& add(uint64_t value) {
    hash_ ^= value + 0x9e3779b97f4a7c15ull;
    hash_ *= 0xbf58476d1ce4e5b9ull;
    hash_ ^= hash_ >> 31;
    return *this;
  }
  StableHasher& addInt(int64_t value) { return add(static_cast<uint64_t>(value)); }
  StableHasher& add(std::string_view text) {
    add(static_cast<uint64_t>(text.size()));
    size_t i = 0;
    for (; i + 8 <= text.size(); i += 8) add(word(text, i, 8));
    if (i < text.size()) add(word(text, i, text.size() - i));
    return *this;
  }
  StableHasher& add(const char* text) { return add(std::string_view(text)); }

  //! The hash, finalized (an avalanche over the state).
  uint64_t value() const {
    uint64_t x = hash_;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }

 private:
  static uint64_t word(std::string_view text, size_t at, size_t bytes) {
    uint64_t w = 0;
    for (size_t b = 0; b < bytes; ++b) {
      w |= static_cast<uint64_t>(static_cast<unsigned char>(text[at + b])) << (8 * b);
    }
    return w;
  }

  uint64_t hash_ = 0x243f6a8885a308d3ull;
};

}  // namespace fuserlab::db
