#include "core/ir/size_limits.h"

#include <string>
#include <variant>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/ir/iter_domain.h"
#include "core/ir/tensor_view.h"

namespace fuserlab::ir {

void checkTensorSizes(const Fusion& fusion, const ExpressionEvaluator& evaluator) {
  // Most tensors have the extents of the tensor before them (a pointwise
  // chain): those are counted once.
  std::vector<const Scalar*> previous;
  std::vector<const Scalar*> extents;
  for (const auto& val : fusion.vals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr) continue;
    extents.clear();
    for (const IterDomain* id : tv->logical()) extents.push_back(id->extentForIteration());
    if (extents == previous) continue;
    previous.swap(extents);
    int64_t count = 1;
    std::string sizes;
    bool over = false;
    bool empty = false;
    for (const IterDomain* id : tv->logical()) {
      const auto value = evaluator.evaluate(id->extentForIteration());
      const int64_t* known = value ? std::get_if<int64_t>(&*value) : nullptr;
      if (known == nullptr) continue;
      const int64_t extent = *known;
      sizes += (sizes.empty() ? "" : " x ") + std::to_string(extent);
      if (extent <= 0) {
        empty = true;
      } else if (!over && count > kMaxTensorElements / extent) {
        over = true;
      } else if (!over) {
        count *= extent;
      }
    }
    if (!over || empty) continue;
    std::string name = tv->name();
    if (!tv->scriptName().empty() && tv->scriptName() != name) {
      name += " ('" + tv->scriptName() + "' in the script)";
    }
    const Expr* def = tv->definition();
    FL_CHECK(false, name, def ? " (the output of " + def->opName() + ")" : std::string(),
             " would hold ", sizes, " elements, more than 2^48 (", kMaxTensorElements,
             "); no GPU holds a tensor that large");
  }
}

}  // namespace fuserlab::ir
