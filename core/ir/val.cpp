#include "core/ir/val.h"

#include <charconv>
#include <cmath>

#include "core/ir/fusion.h"

namespace fuserlab::ir {

bool Val::isFusionInput() const { return fusion_->isInput(this); }
bool Val::isFusionOutput() const { return fusion_->isOutput(this); }

std::optional<int64_t> Scalar::constInt() const {
  if (const auto* i = std::get_if<int64_t>(&value_)) return *i;
  if (const auto* b = std::get_if<bool>(&value_)) return *b ? 1 : 0;
  return std::nullopt;
}

std::optional<double> Scalar::constDouble() const {
  if (const auto* d = std::get_if<double>(&value_)) return *d;
  if (auto i = constInt()) return static_cast<double>(*i);
  return std::nullopt;
}

std::string Scalar::name() const {
  if (const auto* d = std::get_if<double>(&value_)) return formatDouble(*d);
  if (const auto* i = std::get_if<int64_t>(&value_)) return std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&value_)) return *b ? "true" : "false";
  char prefix = 'i';
  if (isFloatingPoint(dtype())) prefix = 'd';
  if (dtype() == DataType::Bool) prefix = 'b';
  return prefix + std::to_string(nameIndex());
}

std::string formatDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

std::string describeVal(const Val* val) {
  std::string text = val->name();
  const std::string& script = val->scriptName();
  if (!script.empty() && script != text) text += " ('" + script + "' in the script)";
  return text;
}

}  // namespace fuserlab::ir
