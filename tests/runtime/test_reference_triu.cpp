// triu (nvFuser's fd.ops.triu, torch.triu): the upper triangle of the last
// two axes, built from iotas, a comparison and a where, on the reference.
// The ops are those every GPU scheduler has; nothing new reaches a kernel.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ops/factory.h"
#include "tests/runtime/reference_executor_fixture.h"

namespace fuserlab::runtime::test {
namespace {

// 1, 2, 3, ... in row-major order, so a kept element keeps its position + 1.
std::vector<double> counting(int64_t n) {
  std::vector<double> values;
  for (int64_t i = 0; i < n; ++i) values.push_back(static_cast<double>(i + 1));
  return values;
}

// torch.triu of counting values over `batch` matrices of rows x cols.
std::vector<double> expected(int64_t batch, int64_t rows, int64_t cols, int64_t diagonal) {
  std::vector<double> out;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        out.push_back(c - r >= diagonal ? static_cast<double>((b * rows + r) * cols + c + 1) : 0);
      }
    }
  }
  return out;
}

TEST_F(ReferenceExecutorTest, TriuKeepsTheUpperTriangleOfTheLastTwoAxes) {
  const std::vector<int64_t> diagonals = {-1, 0, 2};
  TensorView* x = input({2, 4, -1}, DataType::Half);
  for (int64_t diagonal : diagonals) fusion_.addOutput(ops::triu(x, c(diagonal)));
  const std::vector<Tensor> out = run({make(DataType::Half, {2, 4, 5}, counting(40))});
  ASSERT_EQ(out.size(), diagonals.size());
  for (size_t i = 0; i < diagonals.size(); ++i) {
    SCOPED_TRACE("diagonal " + std::to_string(diagonals[i]));
    EXPECT_EQ(out[i].dtype(), DataType::Half);
    EXPECT_EQ(values(out[i]), expected(2, 4, 5, diagonals[i]));
  }
}

TEST_F(ReferenceExecutorTest, TriuNeedsTwoAxesAndAnIntegerDiagonal) {
  expectUserError([&] { ops::triu(input({5}), c(0)); }, {"triu", "needs at least 2"});
  expectUserError(
      [&] {
        ops::triu(input({2, 2}), d(0.5));
      },
      {"triu", "diagonal must be an integer"});
}

// As nvFuser's test_triu writes it: fd.ops.triu(t0, -1), and the keyword.
TEST(ReaderTriuTest, PositionalAndKeywordDiagonalsRead) {
  for (const std::string call :
       {"fd.ops.triu(t0, -1)", "fd.ops.triu(t0, diagonal=-1)", "fd.ops.triu(input=t0)"}) {
    SCOPED_TRACE(call);
    const std::string source =
        "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n\n"
        "inputs = [torch.randn(4, 16, device='cuda', dtype=torch.float16)]\n\n"
        "def fusion_func(fd: FusionDefinition) -> None:\n"
        "    t0 = fd.from_pytorch(inputs[0])\n"
        "    t1 = " +
        call +
        "\n"
        "    fd.add_output(t1)\n\n"
        "with FusionDefinition() as fd:\n    fusion_func(fd)\n";
    const frontend::Script script = frontend::readScript(source, "triu.py");
    ASSERT_EQ(script.fusion().outputs().size(), 1u);
    EXPECT_EQ(script.fusion().outputs().front().val->dtype(), ir::DataType::Half);
  }
}

}  // namespace
}  // namespace fuserlab::runtime::test
