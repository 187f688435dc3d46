#include "core/frontend/input_tensors.h"

#include <charconv>
#include <string>

#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "core/ir/size_limits.h"
#include "core/tensor/tensor.h"

namespace fuserlab::frontend {
namespace {

std::vector<std::string_view> splitOn(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (true) {
    size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end - begin));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  return parts;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

std::optional<int64_t> parseInt(std::string_view text) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parseDouble(std::string_view text) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

InputSpec parseEntry(std::string_view entry, size_t position) {
  const std::string where =
      "--inputs entry " + std::to_string(position) + " ('" + std::string(entry) + "')";
  InputSpec spec;
  size_t colon = entry.find(':');
  if (colon == std::string_view::npos) {
    // A scalar.
    spec.isScalar = true;
    if (entry == "true" || entry == "True") {
      spec.scalar = true;
    } else if (entry == "false" || entry == "False") {
      spec.scalar = false;
    } else if (auto i = parseInt(entry)) {
      spec.scalar = *i;
    } else if (auto d = parseDouble(entry)) {
      spec.scalar = *d;
    } else {
      FL_USER_ERROR(where,
                    ": expected SIZExSIZE...:DTYPE (e.g. 128x64:bf16) "
                    "or a number");
    }
    return spec;
  }
  std::string_view shape = entry.substr(0, colon);
  std::string_view dtype = entry.substr(colon + 1);
  auto parsed = ir::parseShortName(dtype);
  FL_CHECK(parsed.has_value(), where, ": unknown dtype '", dtype,
           "'; expected one of bool, i32, i64, f16, bf16, f32, f64");
  spec.dtype = *parsed;
  if (!shape.empty()) {
    for (std::string_view size : splitOn(shape, 'x')) {
      spec.sizes.push_back(ir::parseInteger(size, where + ": a size", 0, ir::kMaxTensorElements));
    }
  }
  spec.initializer.kind = ir::isFloatingPoint(spec.dtype)
                              ? runtime::TensorInitializer::Kind::Randn
                              : runtime::TensorInitializer::Kind::MakeTensor;
  return spec;
}

// splitmix64 finalizer: decorrelates the per-input seeds.
uint64_t mixSeed(uint64_t seed, uint64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<InputSpec> parseInputsOption(std::string_view spec) {
  std::vector<InputSpec> specs;
  if (trim(spec).empty()) return specs;
  size_t position = 0;
  for (std::string_view entry : splitOn(spec, ',')) {
    specs.push_back(parseEntry(trim(entry), position++));
  }
  return specs;
}

runtime::Arguments makeInputs(const std::vector<InputSpec>& specs, uint64_t seed) {
  runtime::Arguments args;
  args.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& spec = specs[i];
    if (spec.isScalar) {
      args.emplace_back(spec.scalar);
      continue;
    }
    try {
      runtime::Tensor tensor = runtime::Tensor::empty(spec.dtype, spec.sizes);
      spec.initializer.apply(tensor, mixSeed(seed, i));
      if (spec.stridedSizes) {
        tensor = tensor.asStrided(*spec.stridedSizes, *spec.stridedStrides, spec.stridedOffset);
      }
      args.emplace_back(std::move(tensor));
    } catch (const UserError& error) {
      // Point at the inputs entry the problem comes from.
      if (spec.location.line > 0 && !error.location()) {
        throw UserError("inputs entry " + std::to_string(i) + ": " + error.message(),
                        spec.location);
      }
      throw;
    }
  }
  return args;
}

runtime::Arguments makeInputShapes(const std::vector<InputSpec>& specs) {
  runtime::Arguments args;
  args.reserve(specs.size());
  for (const InputSpec& spec : specs) {
    if (spec.isScalar) {
      args.emplace_back(spec.scalar);
      continue;
    }
    std::vector<int64_t> sizes = spec.stridedSizes.value_or(spec.sizes);
    std::vector<int64_t> strides =
        spec.stridedStrides.value_or(runtime::Tensor::contiguousStrides(sizes));
    args.emplace_back(runtime::metadataOnly(spec.dtype, std::move(sizes), std::move(strides),
                                            spec.stridedOffset));
  }
  return args;
}

}  // namespace fuserlab::frontend
