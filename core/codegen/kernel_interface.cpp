#include "core/codegen/kernel_interface.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "core/ir/error.h"

namespace fuserlab::codegen {
namespace {

using ir::DataType;
using ir::TensorView;

// The evaluation-type expression of a scalar parameter (evaluator.h types).
std::string scalarParameterValue(const ir::Scalar* scalar) {
  const std::string name = scalar->name();
  switch (scalar->dtype()) {
    case DataType::Bool: return name;
    case DataType::Int: return name;
    case DataType::Int32: return "(int64_t)" + name;
    case DataType::Double: return name;
    default: return "(double)" + name;  // float, and half/bf16 passed as float
  }
}

std::string valueLiteral(const ir::ScalarValue& value) {
  if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&value)) {
    return "(int64_t)" + std::to_string(*i) + "ll";
  }
  std::ostringstream out;
  out.precision(17);
  out << std::get<double>(value);
  std::string text = out.str();
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

KernelInterface::KernelInterface(const ir::Fusion& segment,
                                 const scheduler::SegmentRuntimeInfo& info, bool int64Indexing)
    : info_(info), int64Indexing_(int64Indexing) {
  const auto& inputs = segment.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    KernelParameter p;
    p.segmentInput = static_cast<int>(i);
    p.dtype = inputs[i]->dtype();
    p.name = inputs[i]->name();
    const auto* tv = inputs[i]->as<TensorView>();
    if (tv != nullptr && tv->isCpuScalar()) {
      // One host value: a by-value parameter, as nvFuser passes it (no copy
      // to the device before the launch).
      p.kind = KernelParameter::Kind::Scalar;
      cpuScalars_.emplace_back(tv, p.name);
    } else if (tv != nullptr) {
      p.kind = KernelParameter::Kind::Tensor;
      p.rank = static_cast<int>(tv->rank());
      const auto rank = static_cast<size_t>(tv->rank());
      if (i < info.inputs.size() && info.inputs[i].sizes.size() == rank &&
          info.inputs[i].strides.size() == rank) {
        const scheduler::TensorInputInfo& layout = info.inputs[i];
        for (size_t a = 0; a < layout.sizes.size(); ++a) {
          p.builtInStrides.push_back(layout.sizes[a] == 1 ? 0 : layout.strides[a]);
        }
      }
      tensors_.push_back({tv, false, p.name, parameters_.size()});
    } else {
      p.kind = KernelParameter::Kind::Scalar;
      scalars_.emplace(inputs[i]->as<ir::Scalar>(),
                       scalarParameterValue(inputs[i]->as<ir::Scalar>()));
    }
    parameters_.push_back(std::move(p));
  }
  const std::vector<ir::Val*> outputs = segment.outputVals();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto* tv = outputs[i]->as<TensorView>();
    FL_CHECK(tv != nullptr, "code generation: output ", outputs[i]->name(),
             " of the segment is a scalar, which a kernel cannot return");
    KernelParameter p;
    p.segmentOutput = static_cast<int>(i);
    p.dtype = tv->dtype();
    p.rank = static_cast<int>(tv->rank());
    p.name = tv->name();
    if (segment.isInput(tv) || find(tv, true) != nullptr) {
      p.name += "_out" + (i == 0 ? std::string() : std::to_string(i));
    }
    tensors_.push_back({tv, true, p.name, parameters_.size()});
    parameters_.push_back(std::move(p));
  }
  // Extents: the first tensor parameter axis that has them.
  for (const TensorParameter& t : tensors_) {
    const auto& axes = t.tv->logicalNoReductions();
    for (size_t a = 0; a < axes.size(); ++a) {
      for (const ir::Scalar* extent : {axes[a]->extentForIteration(), axes[a]->extent()}) {
        if (extent == nullptr || extent->isConst() || extent->definition() != nullptr) {
          continue;
        }
        if (extent != axes[a]->extentForIteration()) continue;
        scalars_.emplace(extent, "(int64_t)" + t.name + ".size[" + std::to_string(a) + "]");
      }
    }
  }
}

std::string_view KernelInterface::indexType() const {
  return int64Indexing_ ? "int64_t" : "int32_t";
}

std::string KernelInterface::signature(std::string_view name, bool workspace) const {
  std::string text = "extern \"C\" __global__ void " + std::string(name) + "(";
  for (size_t i = 0; i < parameters_.size(); ++i) {
    const KernelParameter& p = parameters_[i];
    text += i == 0 ? "\n    " : ",\n    ";
    if (p.kind == KernelParameter::Kind::Tensor) {
      text += "fl::Tensor<" + std::string(elementType(p.dtype)) + ", " + std::to_string(p.rank) +
              "> " + p.name;
    } else {
      text += std::string(scalarParameterType(p.dtype)) + " " + p.name;
    }
  }
  if (workspace)
    text += std::string(parameters_.empty() ? "\n    " : ",\n    ") + "void* workspace";
  return text + ")";
}

std::string KernelInterface::prologue(int indent) const {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string text = pad + "typedef " + std::string(indexType()) + " index_t;\n";
  for (const TensorParameter& t : tensors_) {
    const int64_t rank = t.tv->rank();
    const std::vector<int64_t>& builtIn = parameters_[t.parameter].builtInStrides;
    for (int64_t a = 0; a < rank; ++a) {
      const std::string axis = std::to_string(a);
      if (!builtIn.empty()) {
        text += pad + "constexpr index_t " + t.name + "_s" + axis + " = (index_t)" +
                std::to_string(builtIn[static_cast<size_t>(a)]) + "ll;\n";
        continue;
      }
      text += pad + "const index_t " + t.name + "_s" + axis + " = " + t.name + ".size[" + axis +
              "] == 1 ? (index_t)0 : (index_t)" + t.name + ".stride[" + axis + "];\n";
    }
  }
  return text;
}

const KernelInterface::TensorParameter* KernelInterface::find(const TensorView* tv,
                                                              bool output) const {
  for (const TensorParameter& t : tensors_) {
    if (t.tv == tv && t.output == output) return &t;
  }
  return nullptr;
}

const std::string& KernelInterface::parameterName(const TensorView* tv, bool output) const {
  const TensorParameter* t = find(tv, output);
  FL_ASSERT(t != nullptr, tv->name(), " is not a ", output ? "output" : "input",
            " parameter of the kernel");
  return t->name;
}

std::optional<std::string> KernelInterface::cpuScalarValue(const TensorView* tv) const {
  for (const auto& [scalar, name] : cpuScalars_) {
    if (scalar == tv) return name;
  }
  return std::nullopt;
}

bool KernelInterface::isInputParameter(const TensorView* tv) const {
  return find(tv, false) != nullptr;
}

bool KernelInterface::isOutputParameter(const TensorView* tv) const {
  return find(tv, true) != nullptr;
}

std::string KernelInterface::offset(const TensorView* tv, const ElementIndex& index,
                                    bool output) const {
  const std::string& name = parameterName(tv, output);
  const auto& axes = tv->logicalNoReductions();
  FL_ASSERT(index.size() == axes.size(), tv->name(), ": ", index.size(), " indices for ",
            axes.size(), " axes");
  std::string text;
  for (size_t a = 0; a < axes.size(); ++a) {
    if (index[a] == "0" || axes[a]->isBroadcast()) continue;
    if (!text.empty()) text += " + ";
    text += "(index_t)(" + index[a] + ") * " + name + "_s" + std::to_string(a);
  }
  return text.empty() ? "0" : text;
}

std::string KernelInterface::symbolicScalar(const ir::Scalar* scalar) const {
  if (auto it = scalars_.find(scalar); it != scalars_.end()) return it->second;
  FL_CHECK(info_.evaluator != nullptr, "code generation: the value of ", scalar->name(),
           " is unknown without bound sizes");
  const auto value = info_.evaluator->evaluate(scalar);
  FL_CHECK(value.has_value(), "code generation: the value of ", scalar->name(),
           " is not bound; the kernel cannot compute it");
  const std::string literal = valueLiteral(*value);
  const std::string note = scalar->name() + " = " + literal;
  if (std::find(specialized_.begin(), specialized_.end(), note) == specialized_.end()) {
    specialized_.push_back(note);
  }
  return "(" + literal + " /* " + scalar->name() + " */)";
}

std::string kernelComment(std::string_view name, std::string_view scheduler,
                          const ir::Fusion& segment, const std::string& paramsText) {
  std::string text = "// " + std::string(name) + ": a " + std::string(scheduler) +
                     " kernel generated by FuserLab.\n//\n// Segment:\n";
  for (const ir::Val* in : segment.inputs()) {
    if (const auto* tv = in->as<TensorView>()) {
      text += "//   input  " + tv->toString() + "\n";
    } else {
      text += "//   input  " + in->name() + " (" + std::string(ir::toString(in->dtype())) + ")\n";
    }
  }
  for (const ir::Val* out : segment.outputVals()) {
    const auto* tv = out->as<TensorView>();
    text += "//   output " + (tv ? tv->toString() : out->name()) + "\n";
  }
  for (const ir::Expr* expr : segment.exprsForOutputs()) {
    std::string line = expr->toString();
    for (size_t at = line.find('\n'); at != std::string::npos; at = line.find('\n')) {
      line.replace(at, 1, " ");
    }
    while (line.find("  ") != std::string::npos) line.replace(line.find("  "), 2, " ");
    text += "//   " + line + "\n";
  }
  // The script's own names for this kernel's values, where they differ
  // (the segment's IR numbers its values afresh; issue 46).
  std::vector<const ir::Val*> named;
  std::unordered_set<const ir::Val*> seen;
  const auto note = [&](const ir::Val* val) {
    if (val->scriptName().empty() || val->scriptName() == val->name()) return;
    if (seen.insert(val).second) named.push_back(val);
  };
  for (const ir::Val* in : segment.inputs()) note(in);
  for (const ir::Expr* expr : segment.exprsForOutputs()) {
    for (const ir::Val* out : expr->outputs()) note(out);
  }
  if (!named.empty()) {
    std::string line = "// In the script:";
    for (size_t i = 0; i < named.size(); ++i) {
      const std::string item = " " + named[i]->name() + " is " + named[i]->scriptName() +
                               (i + 1 < named.size() ? "," : "");
      if (line.size() + item.size() > 100) {
        text += line + "\n";
        line = "//  ";
      }
      line += item;
    }
    text += line + "\n";
  }
  text += "//\n// Parameters:\n";
  std::istringstream lines(paramsText);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("=====") != std::string::npos) continue;
    text += "//   " + line + "\n";
  }
  return text;
}

}  // namespace fuserlab::codegen
