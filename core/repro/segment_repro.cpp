#include "core/repro/segment_repro.h"

#include <algorithm>
#include <numeric>

#include "core/compiler/input_description.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/inputs_block_writer.h"
#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ir/tensor_view.h"

namespace fuserlab::frontend {
namespace {

// A fresh tensor of `tv`'s shape at the compiled sizes: its storage dense in
// the tensor's stride order, an expanded axis read with stride 0.
InputSpec intermediateSpec(const ir::TensorView* tv, const ir::ExpressionEvaluator& evaluator) {
  InputSpec spec;
  spec.dtype = tv->dtype();
  spec.device = "cuda:0";
  spec.initializer = ir::isFloatingPoint(tv->dtype()) ? runtime::TensorInitializer::randn()
                                                      : runtime::TensorInitializer::makeTensor();
  const auto& logical = tv->logicalNoReductions();
  const size_t rank = logical.size();
  std::vector<int64_t> sizes(rank), stored(rank);
  std::vector<bool> expanded(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    sizes[i] = evaluator.evaluateExtent(logical[i]);
    expanded[i] = logical[i]->hasExpandedExtent();
    stored[i] = expanded[i] ? 1 : sizes[i];
  }
  // stride_order[i] is axis i's rank among the strides, 0 the smallest.
  std::vector<int64_t> order = tv->strideOrder();
  if (order.size() != rank) {
    order.resize(rank);
    for (size_t i = 0; i < rank; ++i) order[i] = static_cast<int64_t>(rank - 1 - i);
  }
  std::vector<size_t> innermostFirst(rank);
  std::iota(innermostFirst.begin(), innermostFirst.end(), 0);
  std::sort(innermostFirst.begin(), innermostFirst.end(),
            [&](size_t a, size_t b) { return order[a] < order[b]; });
  std::vector<int64_t> strides(rank, 0);
  int64_t elements = 1;
  for (size_t axis : innermostFirst) {
    strides[axis] = expanded[axis] ? 0 : elements;
    elements *= stored[axis];
  }
  const bool dense = std::is_sorted(innermostFirst.rbegin(), innermostFirst.rend()) &&
                     std::none_of(expanded.begin(), expanded.end(), [](bool e) { return e; });
  if (dense) {
    spec.sizes = sizes;
  } else {
    spec.sizes = {elements};
    spec.stridedSizes = sizes;
    spec.stridedStrides = strides;
  }
  return spec;
}

}  // namespace

std::vector<InputSpec> segmentInputSpecs(const runtime::CompiledFusion& compiled, size_t segment,
                                         const std::vector<InputSpec>& fusionInputs) {
  const segmenter::SegmentedFusion& segmented = *compiled.segmented;
  FL_CHECK(segment < segmented.groups().size(), "segment ", segment,
           " does not exist: the fusion has ", segmented.groups().size(), " segments (0 to ",
           segmented.groups().size() - 1, ")");
  const ir::Fusion& complete = segmented.complete();
  FL_ASSERT(fusionInputs.size() == complete.inputs().size(), "segment repro: ", fusionInputs.size(),
            " input specs for ", complete.inputs().size(), " fusion inputs");
  ir::ExpressionEvaluator evaluator;
  runtime::describeInputs(complete, makeInputShapes(fusionInputs), evaluator);

  const segmenter::SegmentedGroup& group = segmented.groups()[segment];
  std::vector<InputSpec> specs;
  for (const ir::Val* input : group.inputs) {
    const auto& inputs = complete.inputs();
    if (auto at = std::find(inputs.begin(), inputs.end(), input); at != inputs.end()) {
      specs.push_back(fusionInputs[at - inputs.begin()]);
      continue;
    }
    if (const auto* tv = input->as<ir::TensorView>()) {
      specs.push_back(intermediateSpec(tv, evaluator));
      continue;
    }
    InputSpec scalar;
    scalar.isScalar = true;
    scalar.dtype = input->dtype();
    auto value = evaluator.evaluate(input->as<ir::Scalar>());
    FL_CHECK(value.has_value(), "segment ", segment, " reads scalar ", input->name(),
             ", whose value the inputs do not give");
    scalar.scalar = *value;
    specs.push_back(std::move(scalar));
  }
  return specs;
}

std::string writeSegmentRepro(const runtime::CompiledFusion& compiled, size_t segment,
                              const std::vector<InputSpec>& fusionInputs,
                              const std::string& origin) {
  const std::vector<InputSpec> specs = segmentInputSpecs(compiled, segment, fusionInputs);
  const segmenter::SegmentedGroup& group = compiled.segmented->groups()[segment];
  const report::SegmentReport& report = compiled.report.segments.at(segment);
  std::string out = "# Segment " + std::to_string(segment) + " of " +
                    std::to_string(compiled.segmented->groups().size()) + " of " + origin + " (" +
                    report.scheduler + "), written by FuserLab.\n";
  out += "# Inputs:";
  for (const ir::Val* input : group.inputs) out += " " + input->name();
  out += "; outputs:";
  for (const ir::Val* output : group.outputs) out += " " + output->name();
  out += " (names in the complete fusion).\n";
  const std::string function = "nvfuser_fusion_segment" + std::to_string(segment);
  out += writeScript(*group.segment, function, /*withBoilerplate=*/true);
  out += "\n" + writeInputsBlock(specs) + "fd.execute(inputs)\n";
  return out;
}

}  // namespace fuserlab::frontend
