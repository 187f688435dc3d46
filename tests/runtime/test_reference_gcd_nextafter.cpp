// gcd and nextafter (nvFuser's fd.ops.gcd and fd.ops.nextafter, torch.gcd
// and torch.nextafter) on the CPU reference, and the dtypes they refuse.
// The generated code's twins: fl::gcd in the device header, nextafterf and
// nextafter from CUDA's math library.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ops/arith.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

using ir::BinaryOpType;

TEST_F(ReferenceExecutorTest, GcdOfIntegersIsTheGcdOfTheirMagnitudes) {
  TensorView* a = input({6}, DataType::Int);
  TensorView* b = input({6}, DataType::Int);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Gcd, a, b));
  const auto out = runValues({make(DataType::Int, {6}, {12, -12, 0, 0, 17, 1071}),
                              make(DataType::Int, {6}, {18, 18, 5, 0, 5, -462})});
  EXPECT_EQ(out, (std::vector<double>{6, 6, 5, 0, 1, 21}));
}

TEST_F(ReferenceExecutorTest, GcdKeepsAnInt32Dtype) {
  TensorView* a = input({2}, DataType::Int32);
  TensorView* b = input({2}, DataType::Int32);
  Val* g = ops::binaryOp(BinaryOpType::Gcd, a, b);
  EXPECT_EQ(g->dtype(), DataType::Int32);
  fusion_.addOutput(g);
  const auto out = runValues(
      {make(DataType::Int32, {2}, {-2147483648.0, 9}), make(DataType::Int32, {2}, {6, 6})});
  EXPECT_EQ(out, (std::vector<double>{2, 3}));
}

TEST_F(ReferenceExecutorTest, NextafterStepsOneUlpOfTheOperandsDtype) {
  TensorView* a = input({4});
  TensorView* b = input({4});
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Nextafter, a, b));
  const auto out = runValues({make(DataType::Float, {4}, {1.0, 1.0, 0.0, -2.5}),
                              make(DataType::Float, {4}, {2.0, 0.0, 1.0, -2.5})});
  EXPECT_EQ(out[0], static_cast<double>(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(out[1], static_cast<double>(std::nextafter(1.0f, 0.0f)));
  EXPECT_EQ(out[2], static_cast<double>(std::numeric_limits<float>::denorm_min()));
  EXPECT_EQ(out[3], -2.5);
}

TEST_F(ReferenceExecutorTest, GcdAndNextafterRefuseOtherDtypes) {
  expectUserError([&] { ops::binaryOp(BinaryOpType::Gcd, input({2}), input({2})); },
                  {"gcd", "gcd takes integers"});
  expectUserError(
      [&] {
        ops::binaryOp(BinaryOpType::Nextafter, input({2}, DataType::Half),
                      input({2}, DataType::Half));
      },
      {"nextafter", "Float or Double"});
  expectUserError(
      [&] {
        ops::binaryOp(BinaryOpType::Nextafter, input({2}, DataType::Int),
                      input({2}, DataType::Int));
      },
      {"nextafter", "Float or Double"});
}

// As nvFuser's frontend tests write them.
TEST(ReaderGcdNextafterTest, TheOpsReadByTheirNvfuserNames) {
  const std::string source =
      "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n\n"
      "inputs = [torch.randint(0, 100, (4, 8), device='cuda'),\n"
      "          torch.randint(0, 100, (4, 8), device='cuda'),\n"
      "          torch.randn(4, 8, device='cuda'), torch.randn(4, 8, device='cuda')]\n\n"
      "def fusion_func(fd: FusionDefinition) -> None:\n"
      "    t0 = fd.from_pytorch(inputs[0])\n"
      "    t1 = fd.from_pytorch(inputs[1])\n"
      "    t2 = fd.from_pytorch(inputs[2])\n"
      "    t3 = fd.from_pytorch(inputs[3])\n"
      "    fd.add_output(fd.ops.gcd(t0, t1))\n"
      "    fd.add_output(fd.ops.nextafter(t2, t3))\n\n"
      "with FusionDefinition() as fd:\n    fusion_func(fd)\n";
  const frontend::Script script = frontend::readScript(source, "gcd.py");
  ASSERT_EQ(script.fusion().outputs().size(), 2u);
  EXPECT_EQ(script.fusion().outputs()[0].val->dtype(), ir::DataType::Int);
  EXPECT_EQ(script.fusion().outputs()[1].val->dtype(), ir::DataType::Float);
}

// nvFuser's test_nextafter: every pair of two tensors and two scalars, the
// scalar results left out by asking is_tensor() of each.
TEST(ReaderGcdNextafterTest, IsTensorTellsTensorResultsFromScalarOnes) {
  const std::string source =
      "import itertools\nimport torch\n"
      "from nvfuser_direct import FusionDefinition, DataType\n\n"
      "inputs = [torch.testing.make_tensor(4, device='cuda', dtype=torch.float32),\n"
      "          torch.testing.make_tensor(4, device='cuda', dtype=torch.float64)]\n\n"
      "def fusion_func(fd: FusionDefinition):\n"
      "    t0 = fd.from_pytorch(inputs[0])\n"
      "    t1 = fd.from_pytorch(inputs[1])\n"
      "    s0 = fd.define_scalar(1.0, dtype=DataType.Float)\n"
      "    s1 = fd.define_scalar(-1.0, dtype=DataType.Double)\n"
      "    for a, b in itertools.product([t0, t1, s0, s1], [t0, t1, s0, s1]):\n"
      "        t = fd.ops.nextafter(a, b)\n"
      "        if t.is_tensor():\n"
      "            fd.add_output(t)\n\n"
      "with FusionDefinition() as fd:\n    fusion_func(fd)\n";
  const frontend::Script script = frontend::readScript(source, "nextafter.py");
  // 16 pairs, 4 of them two scalars.
  EXPECT_EQ(script.fusion().outputs().size(), 12u);
}

}  // namespace
}  // namespace fuserlab::runtime::test
