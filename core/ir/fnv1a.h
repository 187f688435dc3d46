// FNV-1a, 64 bits: the one byte-wise hash of the core, stable across runs,
// builds and platforms. The kernel cache checksums its entries with it and
// the scheduler params hash their fields with it (so both stay as they were
// when each had its own copy). The heuristics database keys segments with
// db::StableHasher instead, a word-wise mixer whose values are stored in
// shipped files and so stay as they are.
#pragma once

#include <cstdint>
#include <string_view>

namespace fuserlab::ir {

inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnv1a64Prime = 0x100000001b3ull;

//! `state` with one more byte.
constexpr uint64_t fnv1a64(uint64_t state, uint8_t byte) { return (state ^ byte) * kFnv1a64Prime; }

//! `state` with `bytes` appended (the hash of `bytes` from the offset basis).
constexpr uint64_t fnv1a64(std::string_view bytes, uint64_t state = kFnv1a64Offset) {
  for (char c : bytes) state = fnv1a64(state, static_cast<uint8_t>(c));
  return state;
}

}  // namespace fuserlab::ir
