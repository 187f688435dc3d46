// Checks every op builder applies to what the user passed: operands present
// and of the right kind, axes normalized against a tensor's rank, and the
// text error messages use for a value and its shape. Every failure is a
// UserError whose message starts with the op's name as the script spells it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ops {

//! The value's IR name, plus its script name when the script called it
//! something else: "T3" or "T3 ('T10' in the script)" (core/ir/val.h).
using ir::describeVal;

//! The extents a consumer sees, as text: "[4, i1, 1]".
std::string shapeToString(const ir::TensorView* tv);
std::string shapeToString(const std::vector<ir::Scalar*>& shape);

//! The constant extent a consumer iterates over (the expanded extent of an
//! expanded broadcast axis), if it is known at build time.
std::optional<int64_t> constExtent(const ir::IterDomain* id);

//! Throws "<op>: <what> is missing" for a null operand.
void checkPresent(std::string_view op, const ir::Val* val, std::string_view what);

//! Throws unless `scalar` is present and of an integer dtype (a size, an
//! extent, a slice bound).
void checkIntegralScalar(std::string_view op, const ir::Scalar* scalar, std::string_view what);

//! `axis` in [-rank, rank) of `tv` normalized to [0, rank).
int64_t normalizeAxis(std::string_view op, const ir::TensorView* tv, int64_t axis);

//! Normalizes each axis (same order as given); an axis named twice, e.g. as
//! 1 and -1, is an error.
std::vector<int64_t> normalizeAxes(std::string_view op, const ir::TensorView* tv,
                                   const std::vector<int64_t>& axes);

}  // namespace fuserlab::ops
