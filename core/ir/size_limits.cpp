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
    std::vector<int64_t> known;  // the extents the evaluator can tell
    for (const Scalar* extent : previous) {
      const auto value = evaluator.evaluate(extent);
      if (const int64_t* v = value ? std::get_if<int64_t>(&*value) : nullptr) known.push_back(*v);
    }
    int64_t count = 1;
    bool over = false;
    for (int64_t extent : known) {
      if (extent <= 0) {
        over = false;  // an empty tensor
        break;
      }
      if (!over && count > kMaxTensorElements / extent) over = true;
      if (!over) count *= extent;
    }
    if (!over) continue;
    // The text only for the error.
    std::string sizes;
    for (int64_t extent : known) sizes += (sizes.empty() ? "" : " x ") + std::to_string(extent);
    const std::string name = describeVal(tv);
    const Expr* def = tv->definition();
    const std::string message = detail::concat(
        name, def ? " (the output of " + def->opName() + ")" : std::string(), " would hold ", sizes,
        " elements, more than 2^48 (", kMaxTensorElements, "); no GPU holds a tensor that large");
    // At the script call that made the tensor, where the reader recorded one.
    if (const SourceLocation* where = fusion.scriptLocationOf(tv)) throw UserError(message, *where);
    throw UserError(message);
  }
}

}  // namespace fuserlab::ir
