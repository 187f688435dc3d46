#include "core/codegen/reference_walk.h"

#include <algorithm>

#include "core/ir/error.h"

namespace fuserlab::codegen {

using ir::TensorView;
using scheduler::AxisPiece;
using scheduler::PieceKind;

int64_t logicalPosition(const TensorView* tv, const ir::IterDomain* id) {
  const auto& axes = tv->logicalNoReductions();
  const auto it = std::find(axes.begin(), axes.end(), id);
  return it == axes.end() ? -1 : it - axes.begin();
}

ReferenceWalk::ReferenceWalk(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info) {
  reference_ = scheduler::largestOutput(segment, info.evaluator);
  FL_CHECK(reference_ != nullptr, "code generation: the segment has no tensor output");
  trace_.emplace(segment, reference_, info.evaluator);
  for (const ir::IterDomain* id : trace_->referenceAxes()) {
    const int64_t position = logicalPosition(reference_, id);
    FL_ASSERT(position >= 0, "reference axis ", id->toString(), " of ", reference_->name(),
              " is not a logical axis");
    logical_.push_back(position);
  }
  extents_ = trace_->referenceExtents();
}

int64_t ReferenceWalk::referenceAxisWalking(const TensorView* tv, const ir::IterDomain* id) const {
  const scheduler::TensorTrace* t = trace_->find(tv);
  if (t == nullptr || id == nullptr) return -1;
  for (size_t k = 0; k < t->axes.size(); ++k) {
    for (const AxisPiece& piece : t->axes[k]) {
      if (piece.kind == PieceKind::Axis && piece.id == id && piece.step == 1) {
        return static_cast<int64_t>(k);
      }
    }
  }
  return -1;
}

std::string ReferenceWalk::extentDeclaration(int64_t k, const std::string& ref,
                                             bool constant) const {
  const std::string name = "ref_e" + std::to_string(k);
  const std::string size = ref + ".size[" + std::to_string(logical(k)) + "]";
  const int64_t extent = extents_[static_cast<size_t>(k)];
  if (constant && extent > 0) {
    return "  constexpr index_t " + name + " = " + std::to_string(extent) + ";  // " + size + "\n";
  }
  return "  const index_t " + name + " = (index_t)" + size + ";\n";
}

OutputAccess ReferenceWalk::outputAccess(const TensorView* out,
                                         const std::vector<std::string>& refIndex,
                                         const KernelInterface& interface) const {
  OutputAccess access;
  const auto& axes = out->logicalNoReductions();
  access.index.assign(axes.size(), "0");
  if (out == reference_) {
    for (int64_t k = 0; k < rank(); ++k) access.index[logical(k)] = refIndex[k];
    return access;
  }
  const scheduler::TensorTrace* trace = trace_->find(out);
  FL_CHECK(trace != nullptr, "code generation: output ", out->name(),
           " is not connected to the reference ", reference_->name());
  std::vector<std::string> terms(axes.size());
  std::vector<bool> resized(axes.size(), false);
  std::vector<std::string> predicates;
  for (int64_t k = 0; k < rank(); ++k) {
    const std::vector<AxisPiece>& pieces = trace->axes[static_cast<size_t>(k)];
    int64_t divisor = 1;
    for (const AxisPiece& piece : pieces) {
      std::string sub = refIndex[k];
      if (pieces.size() > 1) {
        FL_CHECK(piece.extent > 0, "code generation: output ", out->name(),
                 " follows reference axis ", k, " through a reshape of unknown extent");
        sub = "(((index_t)" + refIndex[k] + " / " + std::to_string(divisor) + ") % " +
              std::to_string(piece.extent) + ")";
        divisor *= piece.extent;
      }
      switch (piece.kind) {
        case PieceKind::Broadcast: predicates.push_back(sub + " == 0"); break;
        case PieceKind::Axis: {
          const int64_t a = logicalPosition(out, piece.id);
          FL_CHECK(a >= 0, "code generation: output ", out->name(),
                   " is reached through an axis that is not its own");
          std::string term = piece.step == 1 ? sub : std::to_string(piece.step) + " * " + sub;
          if (piece.offset != 0) term = std::to_string(piece.offset) + " + " + term;
          terms[a] += terms[a].empty() ? term : " + " + term;
          resized[a] = resized[a] || piece.resized;
          break;
        }
        case PieceKind::Indexed:
        case PieceKind::Lost:
          FL_USER_ERROR("code generation: output ", out->name(),
                        " cannot be indexed from the reference ", reference_->name(),
                        trace->lostReason.empty() ? std::string() : ": " + trace->lostReason);
      }
    }
  }
  for (size_t a = 0; a < axes.size(); ++a) {
    if (terms[a].empty()) continue;
    access.index[a] = terms[a].find(' ') == std::string::npos ? terms[a] : "(" + terms[a] + ")";
    if (resized[a]) {
      access.bounded = true;
      predicates.push_back(access.index[a] + " >= 0 && " + access.index[a] + " < " +
                           interface.parameterName(out, true) + ".size[" + std::to_string(a) + "]");
    }
  }
  for (const std::string& p : predicates) {
    access.predicate += access.predicate.empty() ? p : " && " + p;
  }
  return access;
}

}  // namespace fuserlab::codegen
