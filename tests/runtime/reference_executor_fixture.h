// The fixture of the reference executor tests: a Fusion with inputs made
// from a compact shape ({4, -1, 1}: constant, symbolic, broadcast), tensors
// made from value lists, a run through binding + evaluateReference, and
// readers of results as flat value lists.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/reference/reference_executor.h"
#include "core/tensor/argument.h"
#include "core/tensor/tensor.h"

namespace fuserlab::runtime::test {

using ir::DataType;
using ir::IterType;
using ir::Scalar;
using ir::TensorView;
using ir::Val;

class ReferenceExecutorTest : public ::testing::Test {
 protected:
  //! A fusion input: n >= 2 (or 0) a constant extent, 1 a Broadcast axis,
  //! -1 a symbolic extent.
  TensorView* input(const std::vector<int64_t>& shape, DataType dtype = DataType::Float) {
    std::vector<ir::IterDomain*> axes;
    for (int64_t extent : shape) {
      if (extent == -1) {
        axes.push_back(
            fusion_.newIterDomain(fusion_.newScalar(DataType::Int), IterType::Iteration));
      } else {
        axes.push_back(fusion_.newIterDomain(
            fusion_.constInt(extent), extent == 1 ? IterType::Broadcast : IterType::Iteration));
      }
    }
    TensorView* tv = fusion_.newTensorView(axes, dtype);
    fusion_.addInput(tv);
    return tv;
  }

  Scalar* scalarInput(DataType dtype) {
    Scalar* s = fusion_.newScalar(dtype);
    fusion_.addInput(s);
    return s;
  }

  Scalar* c(int64_t value) { return fusion_.constInt(value); }
  Scalar* d(double value) { return fusion_.constDouble(value); }
  std::vector<Scalar*> sizes(const std::vector<int64_t>& values) {
    std::vector<Scalar*> out;
    for (int64_t v : values) out.push_back(c(v));
    return out;
  }

  static TensorView* tv(Val* val) {
    EXPECT_TRUE(val != nullptr && val->isA<TensorView>());
    return val->as<TensorView>();
  }

  //! A contiguous tensor holding `values` (row-major), rounded to `dtype`.
  static Tensor make(DataType dtype, const std::vector<int64_t>& shape,
                     const std::vector<double>& values) {
    Tensor t = Tensor::empty(dtype, shape);
    EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
    std::vector<int64_t> index(shape.size(), 0);
    for (double value : values) {
      t.set(index, value);
      for (size_t d = shape.size(); d-- > 0;) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
    return t;
  }

  //! Every element of `t` in row-major order, as doubles.
  static std::vector<double> values(const Tensor& t) {
    std::vector<double> out;
    const Tensor contiguous = t.to(DataType::Double).contiguous();
    const double* data = contiguous.dataAs<double>();
    out.assign(data, data + contiguous.numel());
    return out;
  }

  //! Evaluates the fusion on `args` (logical views, any strides), binding
  //! the symbolic extents of tensor inputs to the arguments' sizes first as
  //! the executor's contract asks (scalar inputs are bound by the executor).
  std::vector<Tensor> run(const Arguments& args) {
    ir::ExpressionEvaluator evaluator;
    const std::vector<Val*>& inputs = fusion_.inputs();
    for (size_t i = 0; i < inputs.size() && i < args.size(); ++i) {
      const auto* tensorInput = inputs[i]->as<TensorView>();
      const Tensor* tensor = std::get_if<Tensor>(&args[i]);
      if (tensorInput == nullptr || tensor == nullptr) continue;
      const auto axes = tensorInput->logicalNoReductions();
      for (size_t d = 0; d < axes.size() && d < tensor->sizes().size(); ++d) {
        const Scalar* extent = axes[d]->extentForIteration();
        if (!extent->isConst() && !evaluator.isBound(extent)) {
          evaluator.bind(extent, tensor->sizes()[d], "test input");
        }
      }
    }
    return evaluateReference(fusion_, args, evaluator);
  }

  //! Runs and returns the single output's values.
  std::vector<double> runValues(const Arguments& args) {
    std::vector<Tensor> outputs = run(args);
    EXPECT_EQ(outputs.size(), 1u);
    return values(outputs.at(0));
  }

  //! Runs `fn` and expects a UserError whose message contains each fragment.
  template <typename Fn>
  static void expectUserError(Fn&& fn, const std::vector<std::string>& fragments) {
    try {
      fn();
      ADD_FAILURE() << "expected a UserError";
    } catch (const UserError& error) {
      const std::string message = error.what();
      for (const std::string& fragment : fragments) {
        EXPECT_NE(message.find(fragment), std::string::npos)
            << "'" << fragment << "' not in: " << message;
      }
    }
  }

  ir::Fusion fusion_;
};

}  // namespace fuserlab::runtime::test
