// Shared setup of the segmenter tests: a script's fusion, metadata-only
// inputs of given shapes (runtime::metadataOnly, contiguous), bound with
// runtime::describeInputs as the compiler driver does, segmented on the
// built-in H100.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/compiler/input_description.h"
#include "core/frontend/script.h"
#include "core/ir/evaluator.h"
#include "core/scheduler/device_spec.h"
#include "core/segmenter/segmenter.h"

namespace fuserlab::segmenter::testing_support {

//! A metadata-only contiguous tensor argument.
inline runtime::Argument shape(ir::DataType dtype, std::vector<int64_t> sizes) {
  auto strides = runtime::Tensor::contiguousStrides(sizes);
  return runtime::metadataOnly(dtype, std::move(sizes), std::move(strides));
}

//! The fusion a script builds (its executed definition), taken out of it.
inline std::unique_ptr<ir::Fusion> readFusion(std::string_view source) {
  frontend::Script script = frontend::readScript(source, "test.py");
  return std::move(script.definitions.at(script.executed).fusion);
}

class SegmenterFixture : public testing::Test {
 protected:
  //! Segments `fusion` at `inputs` (one per fusion input) with `upcast`.
  SegmentedFusion segment(std::unique_ptr<ir::Fusion> fusion, const runtime::Arguments& inputs,
                          segmenter::UpcastStrategy upcast = segmenter::UpcastStrategy::Privatize) {
    log_.clear();
    evaluator_ = std::make_unique<ir::ExpressionEvaluator>();
    SegmenterContext context;
    context.device = &device_;
    context.evaluator = evaluator_.get();
    context.inputs = runtime::describeInputs(*fusion, inputs, *evaluator_);
    context.upcast = upcast;
    return segmentFusion(std::move(fusion), context, &log_);
  }

  SegmentedFusion segment(std::string_view script, const runtime::Arguments& inputs,
                          segmenter::UpcastStrategy upcast = segmenter::UpcastStrategy::Privatize) {
    return segment(readFusion(script), inputs, upcast);
  }

  //! Decisions of the last segmentation of the given kind.
  std::vector<SegmenterDecision> decisions(std::string_view kind) const {
    std::vector<SegmenterDecision> out;
    for (const auto& d : log_) {
      if (d.kind == kind) out.push_back(d);
    }
    return out;
  }

  scheduler::DeviceSpec device_ = *scheduler::findBuiltinDevice("h100");
  //! The complete fusion's extents; lives as long as the test.
  std::unique_ptr<ir::ExpressionEvaluator> evaluator_;
  std::vector<SegmenterDecision> log_;
};

//! Number of groups scheduled by `type`.
inline int countScheduler(const SegmentedFusion& segmented, scheduler::SchedulerType type) {
  int count = 0;
  for (const auto& group : segmented.groups()) {
    if (group.choice.type == type) ++count;
  }
  return count;
}

//! The exprs of `group` of the given type.
inline int countExprs(const SegmentedGroup& group, ir::ExprType type) {
  int count = 0;
  for (const ir::Expr* expr : group.exprs) {
    if (expr->type() == type) ++count;
  }
  return count;
}

}  // namespace fuserlab::segmenter::testing_support
