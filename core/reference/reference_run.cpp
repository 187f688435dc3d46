#include "core/reference/reference_run.h"

#include <algorithm>
#include <cstring>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/reference/reference_executor.h"
#include "core/tensor/binding.h"

namespace fuserlab::runtime {

std::vector<Tensor> runReference(const ir::Fusion& fusion, const Arguments& inputs) {
  ir::ExpressionEvaluator evaluator;
  const Arguments logicalInputs = bindInputs(fusion, inputs, evaluator);
  std::vector<Tensor> results = evaluateReference(fusion, logicalInputs, evaluator);
  const auto& outputs = fusion.outputs();
  FL_ASSERT(results.size() == outputs.size(), "the reference executor gave ", results.size(),
            " results for ", outputs.size(), " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (const auto* tv = outputs[i].val->as<ir::TensorView>()) {
      results[i] = layoutOutput(*tv, results[i], evaluator);
    }
    if (outputs[i].aliasOf == nullptr) continue;
    const auto& fusionInputs = fusion.inputs();
    size_t position = std::find(fusionInputs.begin(), fusionInputs.end(), outputs[i].aliasOf) -
                      fusionInputs.begin();
    Tensor target = std::get<Tensor>(inputs.at(position));
    copyInto(results[i], target);
    results[i] = target;
  }
  return results;
}

}  // namespace fuserlab::runtime
