// Two ops of nvFuser's frontend tests built from ops FuserLab already runs on
// every backend: logical_right_shift (jax.lax.shift_right_logical; right
// shifts, a mask and a where) and index_select by a 0-dim index (a 1-D
// index of one element, so axis dim has size 1 as torch.index_select gives).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ops/factory.h"
#include "core/ops/logical_shift.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

// nvFuser's test_right_shift_logical inputs.
const std::vector<int64_t> kShifted = {-1,        -2147483648, 1073741824, -64463884,
                                       -65968277, 4042311,     -98914167,  5526216};

Tensor exactTensor(DataType dtype, const std::vector<int64_t>& data) {
  Tensor t = Tensor::empty(DataType::Int, {static_cast<int64_t>(data.size())});
  for (size_t i = 0; i < data.size(); ++i) t.dataAs<int64_t>()[i] = data[i];
  return t.to(dtype);
}

std::vector<int64_t> exactValues(const Tensor& t) {
  const Tensor wide = t.to(DataType::Int).contiguous();
  const int64_t* data = wide.dataAs<int64_t>();
  return {data, data + wide.numel()};
}

TEST_F(ReferenceExecutorTest, LogicalRightShiftShiftsInZerosForEachWidth) {
  // jax.lax.shift_right_logical(x, 3), as nvFuser's test expects it.
  TensorView* narrow = input({8}, DataType::Int32);
  TensorView* wide = input({8}, DataType::Int);
  Val* a = ops::logicalRightShift(narrow, c(3));
  Val* b = ops::logicalRightShift(wide, c(3));
  EXPECT_EQ(a->dtype(), DataType::Int32);
  EXPECT_EQ(b->dtype(), DataType::Int);
  fusion_.addOutput(a);
  fusion_.addOutput(b);
  const auto out =
      run({exactTensor(DataType::Int32, kShifted), exactTensor(DataType::Int, kShifted)});
  EXPECT_EQ(exactValues(out[0]), (std::vector<int64_t>{536870911, 268435456, 134217728, 528812926,
                                                       528624877, 505288, 524506641, 690777}));
  EXPECT_EQ(exactValues(out[1]),
            (std::vector<int64_t>{2305843009213693951, 2305843008945258496, 134217728,
                                  2305843009205635966, 2305843009205447917, 505288,
                                  2305843009201329681, 690777}));
}

TEST_F(ReferenceExecutorTest, LogicalRightShiftByTheWidthOrMoreGivesZero) {
  // nvFuser's test_right_shift_logical_sizeof_dtype: the amount is a scalar
  // input, 32 for Int32 and 64 for Int.
  TensorView* narrow = input({8}, DataType::Int32);
  TensorView* wide = input({8}, DataType::Int);
  Scalar* bits32 = scalarInput(DataType::Int);
  Scalar* bits64 = scalarInput(DataType::Int);
  fusion_.addOutput(ops::logicalRightShift(narrow, bits32));
  fusion_.addOutput(ops::logicalRightShift(wide, bits64));
  const auto out =
      run({exactTensor(DataType::Int32, kShifted), exactTensor(DataType::Int, kShifted),
           ir::ScalarValue(int64_t{32}), ir::ScalarValue(int64_t{64})});
  EXPECT_EQ(exactValues(out[0]), std::vector<int64_t>(8, 0));
  EXPECT_EQ(exactValues(out[1]), std::vector<int64_t>(8, 0));
}

TEST_F(ReferenceExecutorTest, LogicalRightShiftByATensorOfAmounts) {
  // -1 (all ones) by 0, 1, 31, 32, 63, 64, -1 and 70, in both widths.
  const std::vector<int64_t> amounts = {0, 1, 31, 32, 63, 64, -1, 70};
  TensorView* narrow = input({8}, DataType::Int32);
  TensorView* wide = input({8}, DataType::Int);
  TensorView* shift = input({8}, DataType::Int32);
  fusion_.addOutput(ops::logicalRightShift(narrow, shift));
  fusion_.addOutput(ops::logicalRightShift(wide, shift));
  const auto out = run({exactTensor(DataType::Int32, std::vector<int64_t>(8, -1)),
                        exactTensor(DataType::Int, std::vector<int64_t>(8, -1)),
                        exactTensor(DataType::Int32, amounts)});
  EXPECT_EQ(exactValues(out[0]), (std::vector<int64_t>{-1, 2147483647, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(exactValues(out[1]), (std::vector<int64_t>{-1, std::numeric_limits<int64_t>::max(),
                                                       8589934591, 4294967295, 1, 0, 0, 0}));
}

TEST_F(ReferenceExecutorTest, LogicalRightShiftOfAPositiveValueIsTheArithmeticShift) {
  TensorView* x = input({4}, DataType::Int);
  fusion_.addOutput(ops::logicalRightShift(x, c(2)));
  const auto out = run({exactTensor(DataType::Int, {1000, 7, 1, 4611686018427387904})});
  EXPECT_EQ(exactValues(out[0]), (std::vector<int64_t>{250, 1, 0, 1152921504606846976}));
}

TEST_F(ReferenceExecutorTest, LogicalRightShiftNeedsIntegers) {
  expectUserError([&] { ops::logicalRightShift(input({2}), c(1)); },
                  {"logical_right_shift", "needs integer operands"});
  expectUserError([&] { ops::logicalRightShift(input({2}, DataType::Int), d(1.0)); },
                  {"logical_right_shift", "needs integer operands"});
}

TEST_F(ReferenceExecutorTest, IndexSelectByA0DimIndexKeepsTheAxisWithSizeOne) {
  // nvFuser's test_index_select_scalar_indices: x [8, 16], index tensor(2).
  std::vector<double> data;
  for (int i = 0; i < 128; ++i) data.push_back(0.25 * (i + 1) * (i % 2 == 0 ? 1 : -1));
  TensorView* x = input({8, 16});
  TensorView* index = input({}, DataType::Int);
  TensorView* rows = ops::indexSelect(x, index, 0);
  TensorView* cols = ops::indexSelect(x, index, -1);
  fusion_.addOutput(rows);
  fusion_.addOutput(cols);
  const auto out = run({make(DataType::Float, {8, 16}, data), make(DataType::Int, {}, {2})});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{1, 16}));
  EXPECT_EQ(out[1].sizes(), (std::vector<int64_t>{8, 1}));
  const std::vector<double> row(data.begin() + 32, data.begin() + 48);
  std::vector<double> col;
  for (size_t r = 0; r < 8; ++r) col.push_back(data[r * 16 + 2]);
  EXPECT_EQ(values(out[0]), row);
  EXPECT_EQ(values(out[1]), col);
}

// As nvFuser's tests write them.
TEST(ReaderLogicalShiftIndexSelectTest, TheOpsReadAsNvfuserTestsWriteThem) {
  const std::string source =
      "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n\n"
      "inputs = [torch.randint(-100, 100, (8,), device='cuda').to(torch.int32),\n"
      "          torch.randn(8, 16, device='cuda'),\n"
      "          torch.tensor(2, device='cuda').to(dtype=torch.long)]\n\n"
      "def fusion_func(fd: FusionDefinition):\n"
      "    t0 = fd.from_pytorch(inputs[0])\n"
      "    t1 = fd.from_pytorch(inputs[1])\n"
      "    t2 = fd.from_pytorch(inputs[2])\n"
      "    c0 = fd.define_scalar(3)\n"
      "    fd.add_output(fd.ops.logical_right_shift(t0, c0))\n"
      "    fd.add_output(fd.ops.index_select(t1, t2, 1))\n\n"
      "with FusionDefinition() as fd:\n    fusion_func(fd)\n";
  const frontend::Script script = frontend::readScript(source, "shift.py");
  ASSERT_EQ(script.fusion().outputs().size(), 2u);
  EXPECT_EQ(script.fusion().outputs()[0].val->dtype(), ir::DataType::Int32);
  const auto* selected = script.fusion().outputs()[1].val->as<ir::TensorView>();
  ASSERT_NE(selected, nullptr);
  ASSERT_EQ(selected->rank(), 2);
  EXPECT_EQ(selected->logicalNoReductions()[1]->iterType(), ir::IterType::Broadcast);
}

}  // namespace
}  // namespace fuserlab::runtime::test
