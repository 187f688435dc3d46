// What the params structs (pointwise, reduction, transpose) share: reading
// their fields back from JSON, where a missing, ill-typed, out-of-range or
// unknown field is a UserError naming the struct and the field, and a hash
// over their field values that is the same on every run and platform (the
// heuristics database keys on it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/fnv1a.h"
#include "core/report/json.h"

namespace fuserlab::scheduler {

//! Reads one params struct's fields from a JSON object, in any order.
class ParamsJsonReader {
 public:
  //! `what` names the struct in messages ("pointwise params"). A UserError if
  //! `json` is not an object or carries a "schema_version" other than
  //! `schemaVersion` (the member is optional).
  ParamsJsonReader(const report::Json& json, std::string_view what, int schemaVersion);

  int64_t readInt(std::string_view field, int64_t minimum);
  bool readBool(std::string_view field);
  //! A field added after its struct's schema version: absent reads as
  //! `absent`, so params stored before it still load.
  bool readOptionalBool(std::string_view field, bool absent);
  //! One of `allowed`.
  std::string readString(std::string_view field, const std::vector<std::string_view>& allowed);
  //! A UserError naming the first member that no read asked for (a typo or
  //! a field of another struct), with the known fields.
  void finish() const;

 private:
  const report::Json& require(std::string_view field);

  const report::Json& json_;
  std::string what_;
  std::vector<std::string> known_;
};

//! FNV-1a (64 bit, ir/fnv1a.h) over a tag and field values, each value as 8
//! little-endian bytes: stable across runs, builds and platforms.
class ParamsHasher {
 public:
  //! `tag` separates the structs ("pointwise"): equal fields of different
  //! structs hash differently.
  explicit ParamsHasher(std::string_view tag);
  ParamsHasher& add(int64_t value);
  uint64_t value() const { return hash_; }

 private:
  void addByte(uint8_t byte);

  uint64_t hash_ = ir::kFnv1a64Offset;
};

}  // namespace fuserlab::scheduler
