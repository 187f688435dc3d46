#include "core/codegen/vector_lanes.h"

#include <algorithm>
#include <climits>

namespace fuserlab::codegen {
namespace {

std::string constantText(int64_t value) {
  const int64_t magnitude = value < 0 ? -value : value;
  if (value == INT64_MIN || magnitude > INT32_MAX) {
    return "(index_t)" + std::to_string(value) + "ll";
  }
  return std::to_string(magnitude);
}

// Whether `name` occurs in `text` as a whole identifier.
bool mentions(const std::string& text, const std::string& name) {
  auto identifier = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const size_t end = at + name.size();
    if ((at == 0 || !identifier(text[at - 1])) && (end == text.size() || !identifier(text[end]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

IndexSum IndexSum::of(int64_t value) {
  IndexSum sum;
  sum.constant = value;
  return sum;
}

IndexSum IndexSum::term(const std::string& text) {
  IndexSum sum;
  sum.terms[text] = 1;
  return sum;
}

IndexSum IndexSum::operator+(const IndexSum& other) const {
  IndexSum sum = *this;
  sum.constant += other.constant;
  for (const auto& [text, count] : other.terms) {
    if ((sum.terms[text] += count) == 0) sum.terms.erase(text);
  }
  return sum;
}

IndexSum IndexSum::operator-(const IndexSum& other) const {
  IndexSum negated = other;
  negated.constant = -negated.constant;
  for (auto& entry : negated.terms) entry.second = -entry.second;
  return *this + negated;
}

std::string IndexSum::text() const {
  if (terms.empty()) {
    return constant < 0 ? "(-" + constantText(constant) + ")" : constantText(constant);
  }
  std::string out;
  // Positive terms first, so the text starts without a sign where it can.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [text, count] : terms) {
      if ((count > 0) != (pass == 0)) continue;
      for (int64_t i = 0; i < (count < 0 ? -count : count); ++i) {
        if (out.empty()) {
          out = count > 0 ? text : "-" + text;
        } else {
          out += (count > 0 ? " + " : " - ") + text;
        }
      }
    }
  }
  if (constant != 0) out += (constant > 0 ? " + " : " - ") + constantText(constant);
  return "(" + out + ")";
}

std::string IndexSum::addedTo(const std::string& x) const {
  if (isZero()) return x;
  std::string out = "(" + x;
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [text, count] : terms) {
      if ((count > 0) != (pass == 0)) continue;
      for (int64_t i = 0; i < (count < 0 ? -count : count); ++i) {
        out += (count > 0 ? " + " : " - ") + text;
      }
    }
  }
  if (constant != 0) out += (constant > 0 ? " + " : " - ") + constantText(constant);
  return out + ")";
}

VectorLanes::VectorLanes(std::string lane, std::string base, int64_t width)
    : lane_(std::move(lane)), base_(std::move(base)), width_(width) {
  shifts_[lane_] = IndexSum{};
}

bool VectorLanes::laneFree(const std::string& index) const {
  return !mentions(index, lane_) && index.find("gathered_idx") == std::string::npos;
}

const IndexSum* VectorLanes::shiftOf(const std::string& index) const {
  const auto it = shifts_.find(index);
  return it == shifts_.end() ? nullptr : &it->second;
}

std::string VectorLanes::shifted(const IndexSum& shift) {
  std::string index = shift.addedTo(lane_);
  shifts_.emplace(index, shift);
  return index;
}

std::string VectorLanes::baseOf(const std::string& index) const {
  const IndexSum* shift = shiftOf(index);
  return shift == nullptr ? index : shift->addedTo(base_);
}

bool VectorLanes::requireAligned(const std::vector<IndexSum>& values) {
  std::vector<std::string> atRunTime;
  for (const IndexSum& value : values) {
    const bool constantAligned = value.constant % width_ == 0;
    if (value.isConstant()) {
      if (!constantAligned) return false;
      continue;
    }
    // An aligned constant part changes nothing: only the terms are checked,
    // less those proved multiples of the width where they were made.
    IndexSum checked = value;
    for (const std::string& aligned : alignedTerms_) checked.terms.erase(aligned);
    if (checked.isConstant()) {
      if (!constantAligned) return false;
      continue;
    }
    if (constantAligned) checked.constant = 0;
    // x and -x are multiples together: one spelling per pair.
    if (checked.terms.begin()->second < 0) checked = IndexSum{} - checked;
    atRunTime.push_back(checked.text());
  }
  for (const std::string& text : atRunTime) {
    if (std::find(requirements_.begin(), requirements_.end(), text) == requirements_.end()) {
      requirements_.push_back(text);
    }
  }
  return true;
}

}  // namespace fuserlab::codegen
