#include "core/compiler/segment_kernels.h"

#include <algorithm>
#include <numeric>

#include "core/codegen/codegen.h"
#include "core/compiler/input_description.h"
#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

// Strides of a dense tensor of `sizes` whose axis i has the stride_order[i]-th
// smallest stride (row-major without a stride order). Expanded broadcast
// axes (`expanded`) have stride 0 and take no room, as in the view a
// kernel-free segment hands on (an input's expand bookended by
// mark_aliases_prepare).
std::vector<int64_t> denseStrides(const std::vector<int64_t>& sizes,
                                  const std::vector<int64_t>& strideOrder,
                                  const std::vector<bool>& expanded) {
  std::vector<size_t> innermostFirst(sizes.size());
  std::iota(innermostFirst.begin(), innermostFirst.end(), size_t{0});
  if (strideOrder.size() == sizes.size()) {
    std::sort(innermostFirst.begin(), innermostFirst.end(),
              [&](size_t a, size_t b) { return strideOrder[a] < strideOrder[b]; });
  } else {
    std::reverse(innermostFirst.begin(), innermostFirst.end());  // row-major
  }
  std::vector<int64_t> strides(sizes.size(), 0);
  int64_t stride = 1;
  for (size_t axis : innermostFirst) {
    if (expanded[axis]) continue;
    strides[axis] = stride;
    stride *= std::max<int64_t>(sizes[axis], 1);
  }
  return strides;
}

// The arguments of `group`'s segment fusion: the user's inputs where the
// segment reads a fusion input, dense metadata for intermediates, and the
// values of scalars.
Arguments segmentArguments(const segmenter::SegmentedGroup& group, const ir::Fusion& complete,
                           const ir::ExpressionEvaluator& evaluator, const Arguments& inputs) {
  Arguments args;
  const auto& completeInputs = complete.inputs();
  const auto& segmentInputs = group.segment->inputs();
  for (size_t i = 0; i < group.inputs.size(); ++i) {
    const ir::Val* original = group.inputs[i];
    const auto it = std::find(completeInputs.begin(), completeInputs.end(), original);
    if (it != completeInputs.end() &&
        static_cast<size_t>(it - completeInputs.begin()) < inputs.size()) {
      args.push_back(inputs[static_cast<size_t>(it - completeInputs.begin())]);
      continue;
    }
    if (const auto* tv = original->as<ir::TensorView>()) {
      std::vector<int64_t> sizes;
      std::vector<bool> expanded;
      for (const ir::IterDomain* id : tv->logicalNoReductions()) {
        sizes.push_back(evaluator.evaluateExtent(id));
        expanded.push_back(id->isBroadcast() && id->hasExpandedExtent());
      }
      const auto* segmentTv = segmentInputs.at(i)->as<ir::TensorView>();
      const std::vector<int64_t> strides =
          denseStrides(sizes, segmentTv ? segmentTv->strideOrder() : tv->strideOrder(), expanded);
      args.push_back(metadataOnly(tv->dtype(), sizes, strides));
      continue;
    }
    const auto value = evaluator.evaluate(original->as<ir::Scalar>());
    FL_CHECK(value.has_value(), "the value of ", original->name(), " (an input of segment ",
             group.id, ") is unknown at compile time");
    args.push_back(*value);
  }
  return args;
}

}  // namespace

BoundSegment bindSegment(const CompiledFusion& compiled, int id,
                         const scheduler::DeviceSpec& device, const Arguments& inputs) {
  FL_ASSERT(compiled.segmented != nullptr, "bindSegment of an uncompiled fusion");
  const segmenter::SegmentedFusion& segmented = *compiled.segmented;
  const auto& groups = segmented.groups();
  FL_CHECK(id >= 0 && static_cast<size_t>(id) < groups.size(), "segment ", id,
           " does not exist: the fusion has ", groups.size(), " segments (0 to ",
           static_cast<int64_t>(groups.size()) - 1, ")");
  const segmenter::SegmentedGroup& group = groups[static_cast<size_t>(id)];
  FL_ASSERT(group.segment != nullptr, "segment ", group.id, " has no fusion");
  ir::ExpressionEvaluator completeEvaluator;
  describeInputs(segmented.complete(), inputs, completeEvaluator);
  BoundSegment bound;
  bound.group = &group;
  bound.arguments = segmentArguments(group, segmented.complete(), completeEvaluator, inputs);
  bound.evaluator = std::make_unique<ir::ExpressionEvaluator>();
  bound.info.device = &device;
  bound.info.evaluator = bound.evaluator.get();
  bound.info.inputs = describeInputs(*group.segment, bound.arguments, *bound.evaluator);
  return bound;
}

std::string segmentKernelName(int id, scheduler::SchedulerType type) {
  return std::string(scheduler::toString(type)) + "_seg" + std::to_string(id);
}

std::vector<SegmentKernel> generateSegmentKernels(const CompiledFusion& compiled,
                                                  const scheduler::DeviceSpec& device,
                                                  const Arguments& inputs) {
  FL_ASSERT(compiled.segmented != nullptr, "generateSegmentKernels of an uncompiled fusion");
  const segmenter::SegmentedFusion& segmented = *compiled.segmented;
  ir::ExpressionEvaluator completeEvaluator;
  describeInputs(segmented.complete(), inputs, completeEvaluator);

  std::vector<SegmentKernel> kernels;
  for (const segmenter::SegmentedGroup& group : segmented.groups()) {
    if (!scheduler::launchesKernel(group.choice.type)) continue;
    // A cuBLASLt call has no generated kernel.
    const auto* matmul = std::get_if<scheduler::MatmulParams>(&group.choice.params);
    if (matmul != nullptr && matmul->backend == "cublaslt") continue;
    SegmentKernel kernel;
    kernel.segment = group.id;
    kernel.scheduler = group.choice.type;
    kernel.name = segmentKernelName(group.id, group.choice.type);
    try {
      FL_ASSERT(group.segment != nullptr, "segment ", group.id, " has no fusion");
      const Arguments args =
          segmentArguments(group, segmented.complete(), completeEvaluator, inputs);
      ir::ExpressionEvaluator evaluator;
      scheduler::SegmentRuntimeInfo info;
      info.device = &device;
      info.evaluator = &evaluator;
      info.inputs = describeInputs(*group.segment, args, evaluator);
      kernel.kernel = codegen::generateKernel(*group.segment, group.choice.type,
                                              group.choice.params, info, kernel.name);
    } catch (const UserError& error) {
      kernel.error = error.message();
    }
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

}  // namespace fuserlab::runtime
