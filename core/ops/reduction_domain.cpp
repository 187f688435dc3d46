#include "core/ops/reduction_domain.h"

#include <algorithm>

#include "core/ops/operand_checks.h"

namespace fuserlab::ops {

std::vector<int64_t> reductionAxes(std::string_view op, const ir::TensorView* x,
                                   const std::vector<int64_t>& axes) {
  std::vector<int64_t> normalized = normalizeAxes(op, x, axes);
  std::sort(normalized.begin(), normalized.end());
  return normalized;
}

std::vector<ir::IterDomain*> reductionDomain(const ir::TensorView* x,
                                             const std::vector<int64_t>& axes) {
  ir::Fusion* fusion = x->fusion();
  const auto& logical = x->logicalNoReductions();
  std::vector<ir::IterDomain*> out;
  out.reserve(logical.size());
  for (size_t i = 0; i < logical.size(); ++i) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(i));
    out.push_back(reduced ? fusion->cloneIterDomain(logical[i], ir::IterType::Reduction)
                          : fusion->cloneIterDomain(logical[i]));
  }
  return out;
}

std::vector<bool> keepDimFlags(int64_t rank, const std::vector<int64_t>& axes) {
  std::vector<bool> flags(rank, false);
  for (int64_t axis : axes) flags.at(axis) = true;
  return flags;
}

}  // namespace fuserlab::ops
