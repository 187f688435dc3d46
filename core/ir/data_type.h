// Data types of tensors and scalars, and nvFuser's (PyTorch's) type promotion.
//
// Promotion is by category first (bool < integral < floating) and by width
// within a category; Half with BFloat16 gives Float. A scalar only changes the
// result when its category is higher than every tensor's, and then it
// contributes its category's default type (Int for integers, Float for
// floating point), as a "wrapped number" does in PyTorch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fuserlab::ir {

enum class DataType : uint8_t {
  Null,  //!< "no dtype given" (e.g. `dtype=DataType.Null` in a reduction)
  Bool,
  Int32,
  Int,  //!< 64-bit signed integer, nvFuser's `DataType.Int`
  Half,
  BFloat16,
  Float,
  Double,
};

//! nvFuser's spelling: "BFloat16", "Float", ...
std::string_view toString(DataType dtype);
//! The short spelling used by `--inputs` and file names: bf16, f32, i64, ...
std::string_view shortName(DataType dtype);
//! The C++/CUDA spelling used in printed IR: bfloat16, float, int64_t, ...
std::string_view irName(DataType dtype);

//! Parses nvFuser's names ("BFloat16"). Known but unsupported names (Float8_*,
//! complex, unsigned) throw a UserError naming the type; unknown names return
//! std::nullopt so the caller can report them with a source location.
std::optional<DataType> parseDataType(std::string_view name);
//! Parses the short names of `--inputs` (bool, i32, i64, f16, bf16, f32, f64).
std::optional<DataType> parseShortName(std::string_view name);
//! Parses a torch dtype name without the "torch." prefix (bfloat16, float, long...).
std::optional<DataType> parseTorchDtype(std::string_view name);

int64_t sizeInBytes(DataType dtype);
bool isFloatingPoint(DataType dtype);
bool isIntegral(DataType dtype);          //!< Int32 or Int (not Bool)
bool isReducedPrecision(DataType dtype);  //!< Half or BFloat16

//! Tensor-with-tensor promotion.
DataType promote(DataType a, DataType b);

//! The dtype of an elementwise op's result, given its tensor operands' and
//! scalar operands' dtypes (PyTorch's wrapped-number rule for scalars).
DataType promoteOperands(const std::vector<DataType>& tensorDtypes,
                         const std::vector<DataType>& scalarDtypes);

}  // namespace fuserlab::ir
