#include "core/ir/compute_dtype.h"

#include "core/ir/error.h"

namespace fuserlab::ir {

DataType computeDtype(DataType dtype) {
  switch (dtype) {
    case DataType::Half:
    case DataType::BFloat16:
    case DataType::Float: return DataType::Float;
    case DataType::Double: return DataType::Double;
    case DataType::Bool:
    case DataType::Int32:
    case DataType::Int: return DataType::Int;
    case DataType::Null: break;
  }
  FL_ASSERT(false, "no compute dtype for ", toString(dtype));
  return DataType::Null;
}

}  // namespace fuserlab::ir
