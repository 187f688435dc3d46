#include "core/runtime/run_keys.h"

#include <algorithm>
#include <bit>

namespace fuserlab::runtime {
namespace {

std::string listString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? "," : "") + std::to_string(values[i]);
  }
  return out + "]";
}

std::string scalarString(const ir::ScalarValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return "d" + std::to_string(*d);
  if (const auto* i = std::get_if<int64_t>(&value)) return "i" + std::to_string(*i);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  return "none";
}

void pushScalar(std::vector<int64_t>& key, const ir::ScalarValue& value) {
  key.push_back(static_cast<int64_t>(value.index()));
  if (const auto* d = std::get_if<double>(&value)) {
    key.push_back(std::bit_cast<int64_t>(*d));
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    key.push_back(*i);
  } else if (const auto* b = std::get_if<bool>(&value)) {
    key.push_back(*b ? 1 : 0);
  }
}

}  // namespace

int64_t alignmentOf(const Tensor& tensor) {
  const auto address = reinterpret_cast<uintptr_t>(tensor.data());
  int64_t alignment = 256;
  while (alignment > 1 && address % static_cast<uintptr_t>(alignment) != 0) {
    alignment /= 2;
  }
  return alignment;
}

// Sizes, strides, alignment and scalar values: what a kernel generated for
// one call is specific to.
std::string layoutKey(const Arguments& args) {
  std::string key;
  for (const Argument& arg : args) {
    if (const auto* t = std::get_if<Tensor>(&arg)) {
      key += listString(t->sizes()) + listString(t->strides()) + "@" +
             std::to_string(t->isCpu() ? -1 : alignmentOf(*t)) + ";";
    } else {
      key += scalarString(std::get<ir::ScalarValue>(arg)) + ";";
    }
  }
  return key;
}

std::string inputSignature(const Arguments& inputs) {
  std::string key;
  for (const Argument& arg : inputs) {
    const auto* t = std::get_if<Tensor>(&arg);
    if (t == nullptr) {
      const auto& v = std::get<ir::ScalarValue>(arg);
      key += std::holds_alternative<double>(v) ? "s:f;"
             : std::holds_alternative<bool>(v) ? "s:b;"
                                               : "s:i;";
      continue;
    }
    key += std::string(ir::shortName(t->dtype())) + (t->isCpu() ? ":cpu" : "") + ":r" +
           std::to_string(t->dim()) + ":";
    // Stride order: axes by decreasing stride (ties by position).
    std::vector<size_t> order(static_cast<size_t>(t->dim()));
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return t->strides()[a] > t->strides()[b]; });
    // Per axis, outermost in stride order first: 1 for size 1, b for
    // stride 0, c when dense with the axes inside it, n otherwise.
    std::string flags(order.size(), 'n');
    int64_t expected = 1;
    for (size_t k = order.size(); k-- > 0;) {
      const size_t axis = order[k];
      const int64_t size = t->sizes()[axis];
      const int64_t stride = t->strides()[axis];
      if (size == 1) {
        flags[k] = '1';
        continue;
      }
      if (stride == 0) {
        flags[k] = 'b';
        continue;
      }
      flags[k] = stride == expected ? 'c' : 'n';
      expected = stride * size;
    }
    for (size_t k = 0; k < order.size(); ++k) {
      key += std::to_string(order[k]) + flags[k];
    }
    // Alignment beyond 16 bytes (the widest vector access) decides nothing.
    key += ":a" + std::to_string(std::min<int64_t>(alignmentOf(*t), 16)) + ";";
  }
  return key;
}

std::vector<int64_t> replayKey(const Arguments& inputs) {
  std::vector<int64_t> key;
  key.reserve(inputs.size() * 12);
  for (const Argument& arg : inputs) {
    if (const auto* t = std::get_if<Tensor>(&arg)) {
      if (t->isCpu() && t->dim() > 0) return {};
      key.push_back(-1);
      key.push_back(static_cast<int64_t>(t->dtype()));
      key.push_back(t->isCpu() ? -1 : t->device().index);
      key.push_back(t->dim());
      key.insert(key.end(), t->sizes().begin(), t->sizes().end());
      key.insert(key.end(), t->strides().begin(), t->strides().end());
      if (t->isCpu()) {
        key.push_back(std::bit_cast<int64_t>(static_cast<double>(t->item({}))));
      } else {
        key.push_back(alignmentOf(*t));
      }
      continue;
    }
    key.push_back(-2);
    pushScalar(key, std::get<ir::ScalarValue>(arg));
  }
  return key;
}

}  // namespace fuserlab::runtime
