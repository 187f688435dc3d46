// Integers a user types or a file holds (an option's value, an entry id, a
// stored size, a version component), read with a range check. Every refusal
// is a UserError that names the field, quotes the text and gives the allowed
// range, so `99999999999999999999` is a user error (exit 2), never the
// std::out_of_range of std::stoll (exit 3, "internal error: stoll").
//
// The accepted form is plain base-10 digits with an optional leading '-':
// no spaces, no '+', no trailing text (std::stoll takes " 12abc" as 12, and
// std::stoull takes "-1" as 18446744073709551615; neither is what was meant).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace fuserlab::ir {

//! `text` as an integer from `minimum` to `maximum` (both included); nullopt
//! for anything else. For callers that word their own error.
std::optional<int64_t> tryParseInteger(std::string_view text,
                                       int64_t minimum = std::numeric_limits<int64_t>::min(),
                                       int64_t maximum = std::numeric_limits<int64_t>::max());

//! `text` as an integer from `minimum` to `maximum`; otherwise a UserError
//! "WHAT expects an integer from MIN to MAX, found 'TEXT'". `what` names the
//! option or field (`--segment`, `the entry id`).
int64_t parseInteger(std::string_view text, std::string_view what,
                     int64_t minimum = std::numeric_limits<int64_t>::min(),
                     int64_t maximum = std::numeric_limits<int64_t>::max());

//! The same for unsigned 64-bit values (seeds), from 0 to `maximum`.
uint64_t parseUnsigned(std::string_view text, std::string_view what,
                       uint64_t maximum = std::numeric_limits<uint64_t>::max());

}  // namespace fuserlab::ir
