#include "core/ir/iter_domain.h"

#include "core/ir/val.h"

namespace fuserlab::ir {

std::string_view toString(IterType type) {
  switch (type) {
    case IterType::Iteration: return "Iteration";
    case IterType::Reduction: return "Reduction";
    case IterType::Broadcast: return "Broadcast";
  }
  return "?";
}

std::string_view toString(ParallelType type) {
  switch (type) {
    case ParallelType::Serial: return "S";
    case ParallelType::DIDx: return "DIDx";
    case ParallelType::DIDy: return "DIDy";
    case ParallelType::DIDz: return "DIDz";
    case ParallelType::BIDx: return "BIDx";
    case ParallelType::BIDy: return "BIDy";
    case ParallelType::BIDz: return "BIDz";
    case ParallelType::TIDx: return "TIDx";
    case ParallelType::TIDy: return "TIDy";
    case ParallelType::TIDz: return "TIDz";
    case ParallelType::Vectorize: return "V";
    case ParallelType::Unroll: return "UR";
  }
  return "?";
}

bool isDeviceParallel(ParallelType type) {
  return type == ParallelType::DIDx || type == ParallelType::DIDy || type == ParallelType::DIDz;
}

std::optional<ParallelType> parallelTypeFromName(std::string_view name) {
  static constexpr std::pair<std::string_view, ParallelType> kNames[] = {
      {"Serial", ParallelType::Serial},       {"serial", ParallelType::Serial},
      {"DIDx", ParallelType::DIDx},           {"mesh_x", ParallelType::DIDx},
      {"DIDy", ParallelType::DIDy},           {"mesh_y", ParallelType::DIDy},
      {"DIDz", ParallelType::DIDz},           {"mesh_z", ParallelType::DIDz},
      {"BIDx", ParallelType::BIDx},           {"grid_x", ParallelType::BIDx},
      {"BIDy", ParallelType::BIDy},           {"grid_y", ParallelType::BIDy},
      {"BIDz", ParallelType::BIDz},           {"grid_z", ParallelType::BIDz},
      {"TIDx", ParallelType::TIDx},           {"block_x", ParallelType::TIDx},
      {"TIDy", ParallelType::TIDy},           {"block_y", ParallelType::TIDy},
      {"TIDz", ParallelType::TIDz},           {"block_z", ParallelType::TIDz},
      {"Vectorize", ParallelType::Vectorize}, {"vectorize", ParallelType::Vectorize},
      {"Unroll", ParallelType::Unroll},       {"unroll", ParallelType::Unroll},
  };
  for (const auto& [text, type] : kNames) {
    if (text == name) return type;
  }
  return std::nullopt;
}

std::string IterDomain::toString() const {
  std::string out;
  switch (iterType_) {
    case IterType::Iteration: out = "i"; break;
    case IterType::Reduction: out = "r"; break;
    case IterType::Broadcast: out = "b"; break;
  }
  out += ir::toString(parallelType_);
  out += std::to_string(id_) + "{" + extent_->name();
  if (expandedExtent_) out += " ex " + expandedExtent_->name();
  out += "}";
  return out;
}

std::string IterDomainTransform::toString() const {
  auto list = [](const std::vector<IterDomain*>& ids) {
    std::string s;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) s += ", ";
      s += ids[i]->toString();
    }
    return s;
  };
  if (kind_ == TransformKind::Split) {
    return "Split: " + list(inputs_) + " by factor " + factor_->name() +
           (innerSplit_ ? "" : " (outer)") + " -> " + list(outputs_);
  }
  return "Merge: " + list(inputs_) + " -> " + list(outputs_);
}

}  // namespace fuserlab::ir
