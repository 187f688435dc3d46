// The dtype ops compute in for values of a dtype: what the CPU reference
// stores intermediate values in, and what the GPU kernels that must match it
// bit for bit (scans, sorts) accumulate or compare in.
#pragma once

#include "core/ir/data_type.h"

namespace fuserlab::ir {

//! Float for Half, BFloat16 and Float; Double; Int for Bool, Int32 and Int.
DataType computeDtype(DataType dtype);

}  // namespace fuserlab::ir
