#include "core/segmenter/segmented_fusion.h"

#include <algorithm>
#include <unordered_map>

#include "core/ir/tensor_view.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::segmenter {

int SegmentedFusion::kernelCount() const {
  int count = 0;
  for (const auto& group : groups_) {
    if (scheduler::launchesKernel(group.choice.type)) ++count;
  }
  return count;
}

std::string SegmentedFusion::toString() const {
  const std::vector<ir::Expr*> exprs = complete_->exprsForOutputs();
  std::unordered_map<const ir::Expr*, size_t> position;  // lookup only
  for (size_t i = 0; i < exprs.size(); ++i) position.emplace(exprs[i], i);

  auto groupText = [&](const SegmentedGroup& group) {
    std::vector<size_t> numbers;
    for (const ir::Expr* expr : group.exprs) {
      auto it = position.find(expr);
      if (it != position.end()) numbers.push_back(it->second);
    }
    std::sort(numbers.begin(), numbers.end());
    std::string out = std::string(scheduler::toString(group.choice.type)) + "{";
    for (size_t i = 0; i < numbers.size(); ++i) {
      out += (i ? ", " : "") + std::to_string(numbers[i]);
    }
    return out + "}";
  };

  std::string out = "Segmented_Fusion{\ngroups:\n";
  for (const auto& group : groups_) out += "  " + groupText(group) + "\n";
  out += "edges:\n";
  for (const auto& edge : edges_) {
    const auto* tv = edge.val->as<ir::TensorView>();
    out += "  e{ " + groupText(groups_.at(edge.from)) + " -> " + groupText(groups_.at(edge.to)) +
           "(" + (tv ? tv->toString() : edge.val->name()) + ") }\n";
  }
  return out + "}\n";
}

}  // namespace fuserlab::segmenter
