#include "core/ops/factory.h"

#include "tests/ops/ops_fixture.h"

namespace fuserlab::ops::test {
namespace {

class FactoryTest : public OpsFixture {};

TEST_F(FactoryTest, FullMakesSizeOneAxesBroadcast) {
  Scalar* fill = fusion_.constDouble(2.5);
  TensorView* out = full(fusion_, sizes({2, 1, 3}), fill, DataType::BFloat16);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  EXPECT_EQ(iterTypes(out),
            (std::vector<IterType>{IterType::Iteration, IterType::Broadcast,
                                   IterType::Iteration}));
  const ir::Expr* def = out->definition();
  EXPECT_EQ(def->type(), ExprType::Full);
  EXPECT_EQ(def->attrs().dtype, DataType::BFloat16);
  ASSERT_EQ(def->inputs().size(), 4u);
  EXPECT_EQ(def->inputs().back(), fill);
}

TEST_F(FactoryTest, FullRejectsNegativeSizes) {
  expectUserError(
      [&] { full(fusion_, sizes({2, -3}), c(0), DataType::Float); },
      {"full", "shape[1]", "-3"});
}

TEST_F(FactoryTest, IotaDefaultsStartAndStepByDtype) {
  TensorView* ints = iota(fusion_, c(5), nullptr, nullptr, DataType::Int);
  EXPECT_EQ(extents(ints), (std::vector<int64_t>{5}));
  const auto& in = ints->definition()->inputs();
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[1]->as<Scalar>()->constInt(), 0);
  EXPECT_EQ(in[2]->as<Scalar>()->constInt(), 1);
  EXPECT_EQ(in[1]->dtype(), DataType::Int);

  TensorView* floats =
      iota(fusion_, c(4), fusion_.constDouble(0.5), nullptr, DataType::Float);
  EXPECT_EQ(floats->dtype(), DataType::Float);
  EXPECT_EQ(floats->definition()->attrs().dtype, DataType::Float);
  EXPECT_EQ(floats->definition()->input(2)->dtype(), DataType::Double);
}

TEST_F(FactoryTest, IotaErrors) {
  expectUserError(
      [&] { iota(fusion_, c(4), nullptr, nullptr, DataType::Bool); },
      {"iota", "Bool"});
  expectUserError(
      [&] { iota(fusion_, fusion_.constDouble(4.0), nullptr, nullptr,
                 DataType::Int); },
      {"iota", "length", "Double"});
}

TEST_F(FactoryTest, IndexSelectTakesTheIndexExtent) {
  TensorView* x = tensor({5, 7}, DataType::Half);
  TensorView* index = tensor({3}, DataType::Int);
  TensorView* out = indexSelect(x, index, -1);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(out->dtype(), DataType::Half);
  EXPECT_EQ(out->definition()->type(), ExprType::IndexSelect);
  EXPECT_EQ(out->definition()->attrs().dim, 1);
  EXPECT_EQ(out->definition()->inputs(), (std::vector<Val*>{x, index}));
}

TEST_F(FactoryTest, IndexSelectErrors) {
  TensorView* x = tensor({5, 7});
  TensorView* floatIndex = tensor({3});
  expectUserError([&] { indexSelect(x, floatIndex, 0); },
                  {"index_select", floatIndex->name(), "Float", "Int"});
  TensorView* matrixIndex = tensor({3, 2}, DataType::Int32);
  expectUserError([&] { indexSelect(x, matrixIndex, 0); },
                  {"index_select", matrixIndex->name(), "rank 2", "1-D"});
  expectUserError([&] { indexSelect(x, tensor({3}, DataType::Int), 2); },
                  {"index_select", "axis 2", "rank 2"});
}

TEST_F(FactoryTest, TakeAlongAxisHasTheIndexShape) {
  TensorView* x = tensor({5, 7});
  TensorView* index = tensor({5, 2}, DataType::Int32);
  TensorView* out = takeAlongAxis(x, index, 1);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(out->dtype(), DataType::Float);
  EXPECT_EQ(out->definition()->type(), ExprType::Gather);
  EXPECT_EQ(out->definition()->attrs().dim, 1);
}

TEST_F(FactoryTest, TakeAlongAxisErrors) {
  TensorView* x = tensor({5, 7});
  TensorView* flat = tensor({5}, DataType::Int);
  expectUserError([&] { takeAlongAxis(x, flat, 0); },
                  {"take_along_axis", flat->name(), "rank 1", "rank 2"});
  TensorView* wrong = tensor({4, 2}, DataType::Int);
  expectUserError([&] { takeAlongAxis(x, wrong, 1); },
                  {"take_along_axis", "axis 0", "5", "4", wrong->name()});
}

}  // namespace
}  // namespace fuserlab::ops::test
