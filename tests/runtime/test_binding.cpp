// Binding inputs and laying out outputs through allocation domains (seed 002):
// logical, stride-ordered, split/merge and DID-sharded layouts, and the
// messages of every kind of mismatch.
#include <gtest/gtest.h>

#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/ops/arith.h"
#include "core/tensor/binding.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;
using ir::Fusion;
using ir::IterType;
using ir::TensorView;

TensorView* symbolicInput(Fusion& fusion, int64_t rank, DataType dtype) {
  std::vector<ir::IterDomain*> ids;
  for (int64_t i = 0; i < rank; ++i) {
    ids.push_back(fusion.newIterDomain(fusion.newScalar(DataType::Int), IterType::Iteration));
  }
  TensorView* tv = fusion.newTensorView(ids, dtype);
  fusion.addInput(tv);
  return tv;
}

Tensor iotaTensor(std::vector<int64_t> sizes) {
  Tensor t = Tensor::empty(DataType::Float, std::move(sizes));
  float* data = t.dataAs<float>();
  for (int64_t i = 0; i < t.numel(); ++i) data[i] = float(i);
  return t;
}

std::string bindError(const Fusion& fusion, const Arguments& args) {
  ir::ExpressionEvaluator evaluator;
  try {
    bindInputs(fusion, args, evaluator);
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

class BindingTest : public testing::Test {
 protected:
  Fusion fusion_;
  ir::ExpressionEvaluator evaluator_;
};

TEST_F(BindingTest, ContiguousInputBindsSymbolicExtents) {
  TensorView* tv = symbolicInput(fusion_, 2, DataType::Float);
  Tensor t = iotaTensor({4, 8});
  Arguments bound = bindInputs(fusion_, {t}, evaluator_);
  EXPECT_EQ(evaluator_.evaluateExtent(tv->logical()[0]), 4);
  EXPECT_EQ(evaluator_.evaluateExtent(tv->logical()[1]), 8);
  EXPECT_TRUE(std::get<Tensor>(bound[0]).sharesStorageWith(t));
}

TEST_F(BindingTest, StrideOrderedInputIsCheckedInAllocationOrder) {
  TensorView* tv = symbolicInput(fusion_, 2, DataType::Float);
  tv->setStrideOrder({0, 1});  // column-major: axis 0 is innermost
  Tensor columnMajor = iotaTensor({32}).asStrided({4, 8}, {1, 4}, 0);
  Arguments bound = bindInputs(fusion_, {columnMajor}, evaluator_);
  EXPECT_EQ(std::get<Tensor>(bound[0]).strides(), (std::vector<int64_t>{1, 4}));

  const std::string error = bindError(fusion_, {iotaTensor({4, 8})});
  EXPECT_NE(error.find("input 0 (T0)"), std::string::npos) << error;
  EXPECT_NE(error.find("dimension 0"), std::string::npos) << error;
  EXPECT_NE(error.find("stride must be 1, found 8"), std::string::npos) << error;
}

TEST_F(BindingTest, NonContiguousDeclarationAcceptsAnyStride) {
  TensorView* tv = symbolicInput(fusion_, 2, DataType::Float);
  tv->setContiguity({false, true});
  Tensor sliced = iotaTensor({4, 16}).asStrided({4, 8}, {16, 1}, 0);
  EXPECT_NO_THROW(bindInputs(fusion_, {sliced}, evaluator_));
  EXPECT_NE(
      bindError(fusion_, {iotaTensor({64}).asStrided({4, 8}, {16, 2}, 0)}).find("dimension 1"),
      std::string::npos);
}

// Seed 002: logical [i0{6}]; i1{2}, i2{3} = split(i0); allocation =
// [merge(i2, i1)]. Storage [0, 3, 1, 4, 2, 5] is the logical arange(6).
TEST_F(BindingTest, SplitThenMergeAllocationMaterializesLogicalView) {
  auto* i0 = fusion_.newIterDomain(fusion_.constInt(6), IterType::Iteration);
  TensorView* tv = fusion_.newTensorView({i0}, DataType::Float);
  fusion_.addInput(tv);
  tv->split(0, fusion_.constInt(3));  // [i1{2}, i2{3}]
  tv->reorderLoop({1, 0});            // [i2, i1]
  tv->merge(0);                       // [i3{6}]
  tv->setAllocationAsLoop();

  Tensor storage = Tensor::empty(DataType::Float, {6});
  const float order[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) storage.dataAs<float>()[i] = order[i];
  Arguments bound = bindInputs(fusion_, {storage}, evaluator_);
  const Tensor& logical = std::get<Tensor>(bound[0]);
  ASSERT_EQ(logical.sizes(), (std::vector<int64_t>{6}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(logical.item({i}), double(i));

  // Laying the logical arange(6) out again gives the storage order back.
  Tensor laidOut = layoutOutput(*tv, iotaTensor({6}), evaluator_);
  ASSERT_EQ(laidOut.sizes(), (std::vector<int64_t>{6}));
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(laidOut.item({i}), order[i]);
}

TEST_F(BindingTest, SymbolicSplitInfersLogicalExtent) {
  TensorView* tv = symbolicInput(fusion_, 1, DataType::Float);
  tv->split(0, fusion_.constInt(4));  // [ceilDiv(i0, 4), 4]
  tv->setAllocationAsLoop();
  Tensor t = iotaTensor({3, 4});
  Arguments bound = bindInputs(fusion_, {t}, evaluator_);
  EXPECT_EQ(evaluator_.evaluateExtent(tv->logical()[0]), 12);
  const Tensor& logical = std::get<Tensor>(bound[0]);
  ASSERT_EQ(logical.sizes(), (std::vector<int64_t>{12}));
  EXPECT_EQ(logical.item({7}), 7.0);
}

// A DID-sharded input: logical [i0], allocation [DIDx{2}, ceilDiv(i0, 2)].
// The caller passes its local shard [1, S]; i0 binds to the global 2*S.
TEST_F(BindingTest, DeviceShardedInputBindsLocalShard) {
  TensorView* tv = symbolicInput(fusion_, 1, DataType::Float);
  tv->split(0, fusion_.constInt(2), /*innerSplit=*/false);
  tv->loop()[0]->parallelize(ir::ParallelType::DIDx);
  tv->setAllocationAsLoop();
  Tensor shard = iotaTensor({1, 5});
  Arguments bound = bindInputs(fusion_, {shard}, evaluator_);
  EXPECT_EQ(evaluator_.evaluateExtent(tv->logical()[0]), 10);
  const Tensor& local = std::get<Tensor>(bound[0]);
  ASSERT_EQ(local.sizes(), (std::vector<int64_t>{5}));
  EXPECT_EQ(local.item({4}), 4.0);

  const std::string error = bindError(fusion_, {iotaTensor({2, 5})});
  EXPECT_NE(error.find("sharded over devices"), std::string::npos) << error;
  EXPECT_NE(error.find("found 2"), std::string::npos) << error;
}

TEST_F(BindingTest, StrideOrderedOutputHasLogicalShapeAndPermutedStrides) {
  TensorView* tv = symbolicInput(fusion_, 3, DataType::Float);
  tv->setStrideOrder({2, 0, 1});  // allocation [axis0, axis2, axis1]
  Tensor logical = iotaTensor({2, 3, 4});
  Tensor out = layoutOutput(*tv, logical, evaluator_);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(out.strides(), (std::vector<int64_t>{12, 1, 3}));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 4; ++k) {
        EXPECT_EQ(out.item({i, j, k}), logical.item({i, j, k}));
      }
    }
  }
}

TEST_F(BindingTest, MismatchesNameInputDimensionExpectedAndFound) {
  auto* c8 = fusion_.newIterDomain(fusion_.constInt(8), IterType::Iteration);
  auto* b = fusion_.newIterDomain(fusion_.constInt(1), IterType::Broadcast);
  TensorView* tv = fusion_.newTensorView({c8, b}, DataType::BFloat16);
  fusion_.addInput(tv);
  tv->setScriptName("T7");

  std::string rank = bindError(fusion_, {Tensor::empty(DataType::BFloat16, {8})});
  EXPECT_NE(rank.find("input 0 (T0, 'T7' in the script)"), std::string::npos) << rank;
  EXPECT_NE(rank.find("expected a tensor of rank 2, found rank 1"), std::string::npos) << rank;

  std::string size = bindError(fusion_, {Tensor::empty(DataType::BFloat16, {9, 1})});
  EXPECT_NE(size.find("dimension 0: expected size 8"), std::string::npos) << size;
  EXPECT_NE(size.find("found 9"), std::string::npos) << size;

  std::string broadcast = bindError(fusion_, {Tensor::empty(DataType::BFloat16, {8, 3})});
  EXPECT_NE(broadcast.find("dimension 1: expected size 1"), std::string::npos) << broadcast;

  std::string dtype = bindError(fusion_, {Tensor::empty(DataType::Float, {8, 1})});
  EXPECT_NE(dtype.find("expected a BFloat16 tensor, found Float"), std::string::npos) << dtype;

  std::string count = bindError(fusion_, {});
  EXPECT_NE(count.find("1 inputs but 0 were given"), std::string::npos) << count;
}

TEST_F(BindingTest, EmptyTensorBindsWhateverItsStrides) {
  TensorView* tv = symbolicInput(fusion_, 2, DataType::Float);
  Tensor empty = Tensor::emptyStrided(DataType::Float, {2, 0}, {1, 1});
  EXPECT_NO_THROW(bindInputs(fusion_, {empty}, evaluator_));
  EXPECT_EQ(evaluator_.evaluateExtent(tv->logical()[1]), 0);
}

TEST_F(BindingTest, ExpandedBroadcastInputBindsExpandedExtent) {
  ir::Scalar* expanded = fusion_.newScalar(DataType::Int);
  auto* b = fusion_.newIterDomain(fusion_.constInt(1), IterType::Broadcast, expanded);
  auto* i = fusion_.newIterDomain(fusion_.newScalar(DataType::Int), IterType::Iteration);
  TensorView* tv = fusion_.newTensorView({b, i}, DataType::Float);
  fusion_.addInput(tv);
  Tensor row = iotaTensor({4}).asStrided({3, 4}, {0, 1}, 0);
  EXPECT_NO_THROW(bindInputs(fusion_, {row}, evaluator_));
  EXPECT_EQ(evaluator_.evaluateInt(expanded, "expanded"), 3);
}

TEST_F(BindingTest, ScalarInputsBindAndCheckType) {
  ir::Scalar* s = fusion_.newScalar(DataType::Int);
  fusion_.addInput(s);
  Arguments bound = bindInputs(fusion_, {ir::ScalarValue(int64_t{5})}, evaluator_);
  EXPECT_EQ(evaluator_.evaluateInt(s, "s"), 5);
  std::string error = bindError(fusion_, {ir::ScalarValue(2.5)});
  EXPECT_NE(error.find("expected an Int scalar"), std::string::npos) << error;
}

}  // namespace
}  // namespace fuserlab::runtime

namespace fuserlab::runtime {
namespace {

TEST(MetadataBindingTest, MetadataTensorsBindShapesAndAlignment) {
  ir::Fusion fusion;
  auto* i0 = fusion.newIterDomain(fusion.newScalar(ir::DataType::Int), ir::IterType::Iteration);
  ir::TensorView* tv = fusion.newTensorView({i0}, ir::DataType::Float);
  fusion.addInput(tv);
  tv->split(0, fusion.constInt(4));
  tv->setAllocationAsLoop();  // forces the materializing layout path
  ir::ExpressionEvaluator evaluator;
  Tensor meta =
      Tensor::metadata(ir::DataType::Float, {3, 4}, {4, 1}, 1, Device{DeviceKind::Cuda, 0});
  EXPECT_TRUE(meta.isMetadataOnly());
  EXPECT_EQ(meta.data(), nullptr);
  Arguments bound = bindInputs(fusion, {meta}, evaluator);
  EXPECT_EQ(evaluator.evaluateExtent(tv->logical()[0]), 12);
  EXPECT_TRUE(std::get<Tensor>(bound[0]).isMetadataOnly());
}

}  // namespace
}  // namespace fuserlab::runtime
