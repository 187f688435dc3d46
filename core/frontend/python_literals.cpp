#include "core/frontend/python_literals.h"

#include <cmath>
#include <variant>

namespace fuserlab::frontend {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

std::string listOf(const std::vector<std::string>& items) { return "[" + joined(items) + "]"; }

std::string intList(const std::vector<int64_t>& values) {
  std::vector<std::string> items;
  for (int64_t v : values) items.push_back(std::to_string(v));
  return listOf(items);
}

std::string pythonBool(bool value) { return value ? "True" : "False"; }

std::string boolList(const std::vector<bool>& values) {
  std::vector<std::string> items;
  for (bool v : values) items.push_back(pythonBool(v));
  return listOf(items);
}

std::string dtypeArg(ir::DataType dtype) { return "DataType." + std::string(ir::toString(dtype)); }

std::string idList(const std::vector<ir::IterDomain*>& ids) {
  std::vector<std::string> items;
  for (const ir::IterDomain* id : ids) items.push_back(id->toString());
  return listOf(items);
}

std::string doubleLiteral(double value) {
  if (std::isnan(value)) return "float(\"nan\")";
  if (std::isinf(value)) return value > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  return ir::formatDouble(value);
}

std::string scalarLiteral(const ir::ScalarValue& value) {
  if (const auto* b = std::get_if<bool>(&value)) return pythonBool(*b);
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return doubleLiteral(*d);
  return "None";
}

}  // namespace fuserlab::frontend
