// Python literals as the script and inputs-block writers spell them: lists,
// booleans, dtypes and numbers that read back (through the script reader and
// through Python) to the same values.
#pragma once

#include <string>
#include <vector>

#include "core/ir/data_type.h"
#include "core/ir/iter_domain.h"
#include "core/ir/val.h"

namespace fuserlab::frontend {

//! "a, b, c".
std::string joined(const std::vector<std::string>& items);
//! "[a, b, c]".
std::string listOf(const std::vector<std::string>& items);
std::string intList(const std::vector<int64_t>& values);
//! "True" / "False".
std::string pythonBool(bool value);
std::string boolList(const std::vector<bool>& values);
//! "DataType.BFloat16".
std::string dtypeArg(ir::DataType dtype);
//! The IterDomains' printed names, as a list.
std::string idList(const std::vector<ir::IterDomain*>& ids);
//! A double that reads back to the same value (nan and inf as float("...")).
std::string doubleLiteral(double value);
//! A bool, int or double as a Python literal; "None" for no value.
std::string scalarLiteral(const ir::ScalarValue& value);

}  // namespace fuserlab::frontend
