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
            (std::vector<IterType>{IterType::Iteration, IterType::Broadcast, IterType::Iteration}));
  const ir::Expr* def = out->definition();
  EXPECT_EQ(def->type(), ExprType::Full);
  EXPECT_EQ(def->attrs().dtype, DataType::BFloat16);
  ASSERT_EQ(def->inputs().size(), 4u);
  EXPECT_EQ(def->inputs().back(), fill);
}

TEST_F(FactoryTest, FullRejectsNegativeSizes) {
  expectUserError(
      [&] {
        full(fusion_, sizes({2, -3}), c(0), DataType::Float);
      },
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

  TensorView* floats = iota(fusion_, c(4), fusion_.constDouble(0.5), nullptr, DataType::Float);
  EXPECT_EQ(floats->dtype(), DataType::Float);
  EXPECT_EQ(floats->definition()->attrs().dtype, DataType::Float);
  EXPECT_EQ(floats->definition()->input(2)->dtype(), DataType::Double);
}

TEST_F(FactoryTest, IotaErrors) {
  expectUserError([&] { iota(fusion_, c(4), nullptr, nullptr, DataType::Bool); }, {"iota", "Bool"});
  expectUserError([&] { iota(fusion_, fusion_.constDouble(4.0), nullptr, nullptr, DataType::Int); },
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

TEST_F(FactoryTest, SelectIsASliceOfOnePositionThenSqueeze) {
  TensorView* x = tensor({5, 7}, DataType::Half);
  TensorView* out = select(x, c(-2), 1);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{5}));
  EXPECT_EQ(out->dtype(), DataType::Half);
  const ir::Expr* squeeze = out->definition();
  ASSERT_EQ(squeeze->type(), ExprType::Squeeze);
  EXPECT_EQ(squeeze->attrs().axes, (std::vector<int64_t>{1}));
  const ir::Expr* slice = squeeze->input(0)->definition();
  ASSERT_EQ(slice->type(), ExprType::Slice);
  EXPECT_EQ(slice->input(0), x);
  // [x, start_0, stop_0, step_0, start_1, ...]: axis 0 whole; -2 counts
  // from the end of the 7 positions: [5, 6).
  EXPECT_EQ(slice->input(4)->as<Scalar>()->constInt(), 5);
  EXPECT_EQ(slice->input(5)->as<Scalar>()->constInt(), 6);
  EXPECT_EQ(extents(slice->output(0)->as<TensorView>()), (std::vector<int64_t>{5, 1}));
}

TEST_F(FactoryTest, SelectWrapsASymbolicIndexAtRunTime) {
  TensorView* x = tensor({5, -1});
  Scalar* index = fusion_.newScalar(DataType::Int);
  TensorView* out = select(x, index, 1);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{5}));
  const ir::Expr* slice = out->definition()->input(0)->definition();
  ASSERT_EQ(slice->type(), ExprType::Slice);
  // The start is index + extent * (index < 0): a scalar Add of the index.
  const ir::Expr* wrapped = slice->input(4)->definition();
  ASSERT_NE(wrapped, nullptr);
  EXPECT_EQ(wrapped->type(), ExprType::Binary);
  EXPECT_EQ(wrapped->attrs().binaryOp, ir::BinaryOpType::Add);
  EXPECT_EQ(wrapped->input(0), index);
}

TEST_F(FactoryTest, SelectErrors) {
  TensorView* x = tensor({5, 7});
  expectUserError([&] { select(x, c(7), 1); },
                  {"select", "index 7 is out of range for axis 1", "-7 <= index < 7"});
  expectUserError([&] { select(x, c(-6), 0); }, {"select", "index -6", "axis 0"});
  expectUserError([&] { select(x, fusion_.constDouble(1.0), 0); },
                  {"select", "the index", "integer scalar", "Double"});
  expectUserError([&] { select(x, c(0), 2); }, {"select", "axis 2", "rank 2"});
  expectUserError([&] { select(tensor({}), c(0), 0); }, {"select", "0-dim"});
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
