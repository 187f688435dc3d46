#include "core/ir/data_type.h"

#include <array>

#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

struct DtypeNames {
  DataType dtype;
  std::string_view nvfuser;
  std::string_view shortName;
  std::string_view ir;
};

constexpr std::array<DtypeNames, 8> kNames = {{
    {DataType::Null, "Null", "null", "null"},
    {DataType::Bool, "Bool", "bool", "bool"},
    {DataType::Int32, "Int32", "i32", "int"},
    {DataType::Int, "Int", "i64", "int64_t"},
    {DataType::Half, "Half", "f16", "__half"},
    {DataType::BFloat16, "BFloat16", "bf16", "__bfloat"},
    {DataType::Float, "Float", "f32", "float"},
    {DataType::Double, "Double", "f64", "double"},
}};

const DtypeNames& namesOf(DataType dtype) { return kNames[static_cast<size_t>(dtype)]; }

// Categories ordered as PyTorch's promotion orders them.
int category(DataType dtype) {
  if (dtype == DataType::Bool) return 0;
  if (isIntegral(dtype)) return 1;
  return 2;
}

DataType defaultOfCategory(int cat) {
  switch (cat) {
    case 0: return DataType::Bool;
    case 1: return DataType::Int;
    default: return DataType::Float;
  }
}

}  // namespace

std::string_view toString(DataType dtype) { return namesOf(dtype).nvfuser; }
std::string_view shortName(DataType dtype) { return namesOf(dtype).shortName; }
std::string_view irName(DataType dtype) { return namesOf(dtype).ir; }

std::optional<DataType> parseDataType(std::string_view name) {
  for (const auto& n : kNames) {
    if (n.nvfuser == name) return n.dtype;
  }
  static constexpr std::array<std::string_view, 10> kKnownUnsupported = {
      "Float8_e4m3fn", "Float8_e5m2",   "Float8_e8m0fnu", "Float4_e2m1fn", "Float4_e2m1fn_x2",
      "ComplexFloat",  "ComplexDouble", "UInt64",         "UInt32",        "UInt16"};
  for (auto unsupported : kKnownUnsupported) {
    FL_CHECK(unsupported != name, "DataType.", name,
             " is not supported by FuserLab; supported types are Bool, Int32, "
             "Int, Half, BFloat16, Float and Double");
  }
  return std::nullopt;
}

std::optional<DataType> parseShortName(std::string_view name) {
  for (const auto& n : kNames) {
    if (n.dtype != DataType::Null && n.shortName == name) return n.dtype;
  }
  return std::nullopt;
}

std::optional<DataType> parseTorchDtype(std::string_view name) {
  struct Alias {
    std::string_view torch;
    DataType dtype;
  };
  static constexpr std::array<Alias, 14> kAliases = {{
      {"bool", DataType::Bool},
      {"int32", DataType::Int32},
      {"int", DataType::Int32},
      {"int64", DataType::Int},
      {"long", DataType::Int},
      {"float16", DataType::Half},
      {"half", DataType::Half},
      {"bfloat16", DataType::BFloat16},
      {"float32", DataType::Float},
      {"float", DataType::Float},
      {"float64", DataType::Double},
      {"double", DataType::Double},
      {"int16", DataType::Null},
      {"uint8", DataType::Null},
  }};
  for (const auto& alias : kAliases) {
    if (alias.torch == name) {
      FL_CHECK(alias.dtype != DataType::Null, "torch.", name,
               " tensors are not supported by FuserLab");
      return alias.dtype;
    }
  }
  if (name.starts_with("float8") || name.starts_with("complex")) {
    FL_USER_ERROR("torch.", name, " tensors are not supported by FuserLab");
  }
  return std::nullopt;
}

int64_t sizeInBytes(DataType dtype) {
  switch (dtype) {
    case DataType::Null: return 0;
    case DataType::Bool: return 1;
    case DataType::Half:
    case DataType::BFloat16: return 2;
    case DataType::Int32:
    case DataType::Float: return 4;
    case DataType::Int:
    case DataType::Double: return 8;
  }
  return 0;
}

bool isFloatingPoint(DataType dtype) {
  return dtype == DataType::Half || dtype == DataType::BFloat16 || dtype == DataType::Float ||
         dtype == DataType::Double;
}

bool isIntegral(DataType dtype) { return dtype == DataType::Int32 || dtype == DataType::Int; }

bool isReducedPrecision(DataType dtype) {
  return dtype == DataType::Half || dtype == DataType::BFloat16;
}

DataType promote(DataType a, DataType b) {
  if (a == DataType::Null) return b;
  if (b == DataType::Null) return a;
  if (a == b) return a;
  int ca = category(a);
  int cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  // Same category, different types.
  if (isReducedPrecision(a) && isReducedPrecision(b)) return DataType::Float;
  return sizeInBytes(a) >= sizeInBytes(b) ? a : b;
}

DataType promoteOperands(const std::vector<DataType>& tensorDtypes,
                         const std::vector<DataType>& scalarDtypes) {
  DataType result = DataType::Null;
  for (DataType t : tensorDtypes) result = promote(result, t);
  DataType scalars = DataType::Null;
  for (DataType s : scalarDtypes) scalars = promote(scalars, s);
  if (result == DataType::Null) return scalars;
  if (scalars != DataType::Null && category(scalars) > category(result)) {
    return defaultOfCategory(category(scalars));
  }
  return result;
}

}  // namespace fuserlab::ir
