// The base fixture of the pointwise, vectorization and transpose tests: a
// fusion read from the body of an nvFuser definition, inputs bound as
// metadata-only tensors (shapes, strides and alignment, no data), and the
// SegmentRuntimeInfo the schedulers see, on the built-in H100.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/compiler/input_description.h"
#include "core/frontend/script.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/runtime_info.h"
#include "core/tensor/tensor.h"

namespace fuserlab::scheduler::test {

using ir::DataType;
using ir::TensorView;

class SchedulerFixture : public ::testing::Test {
 protected:
  SchedulerFixture() : device_(*findBuiltinDevice("h100")) {}

  //! Reads the body of a definition (unindented script lines).
  void define(std::string_view body) {
    std::ostringstream out;
    out << "from nvfuser import FusionDefinition, DataType\n\n"
        << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
    out << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
    script_ = frontend::readScript(out.str(), "test.py");
    fusion_ = &script_->fusion();
  }
  //! Uses a fusion built with the IR API instead of a script.
  void use(ir::Fusion& fusion) { fusion_ = &fusion; }

  ir::Fusion& fusion() { return *fusion_; }

  //! The tensor the script named `name` ("T3").
  const TensorView* tensor(const std::string& name) {
    for (const auto& val : fusion_->vals()) {
      if (val->scriptName() == name) return val->as<TensorView>();
    }
    ADD_FAILURE() << "no tensor named " << name;
    return nullptr;
  }
  //! The IR name of the tensor the script named `name`.
  std::string irName(const std::string& name) {
    const TensorView* tv = tensor(name);
    return tv ? tv->name() : std::string("?");
  }

  //! A contiguous device tensor without data (shapes, strides, alignment).
  static runtime::Tensor contiguous(DataType dtype, std::vector<int64_t> sizes) {
    auto strides = runtime::Tensor::contiguousStrides(sizes);
    return strided(dtype, std::move(sizes), std::move(strides));
  }
  //! A strided device tensor without data, `storageOffset` elements past a
  //! 256-byte aligned base. (runtime::metadataOnly's null base would lose
  //! the offset's misalignment, and Tensor::borrow refuses a null base for a
  //! non-empty tensor, so the tensor borrows a made-up device address that
  //! nothing ever reads.)
  static runtime::Tensor strided(DataType dtype, std::vector<int64_t> sizes,
                                 std::vector<int64_t> strides, int64_t storageOffset = 0) {
    void* base = reinterpret_cast<void*>(uintptr_t{1} << 40);
    return runtime::Tensor::borrow(base, dtype, std::move(sizes), std::move(strides), storageOffset,
                                   runtime::DeviceKind::Cuda);
  }

  //! Binds the fusion's inputs and returns the runtime info on the H100.
  const SegmentRuntimeInfo& bind(const std::vector<runtime::Tensor>& inputs) {
    runtime::Arguments args(inputs.begin(), inputs.end());
    evaluator_ = ir::ExpressionEvaluator();
    info_ = SegmentRuntimeInfo();
    info_.device = &device_;
    info_.evaluator = &evaluator_;
    info_.inputs = runtime::describeInputs(*fusion_, args, evaluator_);
    return info_;
  }
  const SegmentRuntimeInfo& info() const { return info_; }

  DeviceSpec device_;

 private:
  std::optional<frontend::Script> script_;
  ir::Fusion* fusion_ = nullptr;
  ir::ExpressionEvaluator evaluator_;
  SegmentRuntimeInfo info_;
};

//! The fixtures the tests are named by, shared by every file that uses them
//! (GoogleTest requires one fixture type per test suite).
class PointwiseTest : public SchedulerFixture {};
class TransposeTest : public SchedulerFixture {};

}  // namespace fuserlab::scheduler::test
