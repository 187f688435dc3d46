// The base fixture of the op builder tests: a Fusion, input tensors made
// from a compact shape ({4, -1, 1}: constant, symbolic, broadcast), readers
// of a result's extents and iter types, and an expected-UserError check.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/fusion.h"

namespace fuserlab::ops::test {

using ir::DataType;
using ir::ExprType;
using ir::IterType;
using ir::Scalar;
using ir::TensorView;
using ir::Val;

class OpsFixture : public ::testing::Test {
 protected:
  //! A fusion input: n >= 2 (or 0) a constant extent, 1 a Broadcast axis,
  //! -1 a symbolic extent.
  TensorView* tensor(const std::vector<int64_t>& shape, DataType dtype = DataType::Float) {
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

  Scalar* c(int64_t value) { return fusion_.constInt(value); }
  std::vector<Scalar*> sizes(const std::vector<int64_t>& values) {
    std::vector<Scalar*> out;
    for (int64_t v : values) out.push_back(c(v));
    return out;
  }

  //! The extents a consumer sees (expanded ones included); -1 if symbolic.
  static std::vector<int64_t> extents(const TensorView* tv) {
    std::vector<int64_t> out;
    for (ir::IterDomain* id : tv->logicalNoReductions()) {
      out.push_back(id->extentForIteration()->constInt().value_or(-1));
    }
    return out;
  }

  //! Iter types of the whole logical domain (reduction axes included).
  static std::vector<IterType> iterTypes(const TensorView* tv) {
    std::vector<IterType> out;
    for (ir::IterDomain* id : tv->logical()) out.push_back(id->iterType());
    return out;
  }

  static TensorView* asTensor(Val* val) {
    EXPECT_NE(val, nullptr);
    EXPECT_TRUE(val->isA<TensorView>()) << val->name() << " is not a tensor";
    return val->as<TensorView>();
  }

  ir::Fusion fusion_;
};

//! Runs `fn` and expects a UserError whose message contains each fragment.
template <typename Fn>
void expectUserError(Fn&& fn, const std::vector<std::string>& fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected a UserError mentioning '"
                  << (fragments.empty() ? "" : fragments.front()) << "'";
  } catch (const UserError& error) {
    for (const std::string& fragment : fragments) {
      EXPECT_NE(error.message().find(fragment), std::string::npos)
          << "message '" << error.message() << "' lacks '" << fragment << "'";
    }
  }
}

}  // namespace fuserlab::ops::test
