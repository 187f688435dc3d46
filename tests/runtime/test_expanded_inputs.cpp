// Expanded inputs on the CPU reference, end to end: a script declares an
// input axis as an expanded broadcast (contiguity None with shape -1, or a
// stride-0 axis in the sizes/strides form), the inputs block or the test
// passes a stride-0 view (expand or as_strided), and binding, pointwise ops
// and reductions read it with stride 0. Values are checked by hand; binding
// refuses data that varies along an axis declared expanded, as nvFuser does.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/reference/reference_run.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

class ExpandedInputsTest : public ::testing::Test {
 protected:
  static frontend::Script script(std::string_view body, std::string_view inputs = {}) {
    std::ostringstream out;
    out << "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n"
        << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
    out << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
    if (!inputs.empty()) out << "\ninputs = [\n" << inputs << "]\n";
    return frontend::readScript(out.str(), "expanded.py");
  }

  //! A contiguous float tensor of `sizes` holding `values` (row-major).
  static Tensor floats(std::vector<int64_t> sizes, const std::vector<double>& values) {
    Tensor t = Tensor::empty(DataType::Float, std::move(sizes));
    EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
    float* data = t.dataAs<float>();
    for (size_t i = 0; i < values.size(); ++i) data[i] = float(values[i]);
    return t;
  }

  //! Every element in row-major order.
  static std::vector<double> values(const Tensor& t) {
    const Tensor contiguous = t.to(DataType::Double).contiguous();
    const double* data = contiguous.dataAs<double>();
    return {data, data + contiguous.numel()};
  }
};

TEST_F(ExpandedInputsTest, PointwiseAndReductionsReadTheExpandedAxisWithStrideZero) {
  const frontend::Script s = script(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], "
      "dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n"
      "T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n"
      "T2 = fd.ops.add(T0, T1)\n"
      "T3 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)\n"
      "T4 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)\n"
      "fd.add_output(T2)\nfd.add_output(T3)\nfd.add_output(T4)");
  // Row [1, 2, 3] expanded to 2 rows.
  const Tensor row = floats({3}, {1, 2, 3}).asStrided({2, 3}, {0, 1}, 0);
  const std::vector<Tensor> out =
      runReference(s.fusion(), {row, floats({2, 3}, {10, 20, 30, 40, 50, 60})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{11, 22, 33, 41, 52, 63}));
  // Summing the expanded axis adds the row to itself once per row.
  EXPECT_EQ(values(out[1]), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{6, 6}));
}

TEST_F(ExpandedInputsTest, SizesAndStridesFormWithAStrideZeroInnerAxis) {
  // A column [1, 2, 3] expanded along the inner axis: sizes [3, 2], strides
  // [1, 0].
  const frontend::Script s = script(
      "T0 = fd.define_tensor(sizes=[3, 2], strides=[1, 0], "
      "dtype=DataType.Float)\n"
      "T1 = fd.ops.mul(T0, fd.define_scalar(2.0, dtype=DataType.Double))\n"
      "T2 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)\n"
      "fd.add_output(T1)\nfd.add_output(T2)");
  const Tensor column = floats({3}, {1, 2, 3}).asStrided({3, 2}, {1, 0}, 0);
  const std::vector<Tensor> out = runReference(s.fusion(), {column});
  EXPECT_EQ(values(out[0]), (std::vector<double>{2, 2, 4, 4, 6, 6}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{2, 4, 6}));
}

TEST_F(ExpandedInputsTest, InputsBlockExpandAndAsStridedRunAsNvFuserBindsThem) {
  const frontend::Script s = script(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], "
      "dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n"
      "T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, None, "
      "True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])\n"
      "T2 = fd.ops.broadcast_in_dim(T0, shape=[2, 4, 3], "
      "broadcast_dims=[1, 2])\n"
      "T3 = fd.ops.mul(T1, T2)\n"
      "fd.add_output(T3)",
      "    torch.arange(1, 4, dtype=torch.float32).as_strided((4, 3), (0, 1)),\n"
      "    torch.arange(1, 7, dtype=torch.float32).as_strided((2, 1, 3), "
      "(3, 3, 1)).expand(2, 4, 3),\n");
  ASSERT_TRUE(s.inputs.has_value());
  const Arguments inputs = frontend::makeInputs(*s.inputs, 3);
  const Tensor& t1 = std::get<Tensor>(inputs[1]);
  EXPECT_EQ(t1.strides(), (std::vector<int64_t>{3, 0, 1}));
  const std::vector<Tensor> out = runReference(s.fusion(), inputs);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 4, 3}));
  std::vector<double> expected;
  for (int b = 0; b < 2; ++b) {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 3; ++c) expected.push_back((b * 3 + c + 1) * (c + 1));
    }
  }
  EXPECT_EQ(values(out[0]), expected);
}

TEST_F(ExpandedInputsTest, ASizeOneTensorBindsAnExpandedAxis) {
  // nvFuser accepts size 1 where an axis is declared expanded: the expanded
  // extent binds to 1.
  const frontend::Script s = script(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True])\n"
      "T1 = fd.ops.neg(T0)\n"
      "fd.add_output(T1)");
  const std::vector<Tensor> out = runReference(s.fusion(), {floats({1, 3}, {1, 2, 3})});
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{-1, -2, -3}));
}

TEST_F(ExpandedInputsTest, DataThatVariesAlongAnExpandedAxisIsAUserError) {
  const frontend::Script s = script(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True])\n"
      "T1 = fd.ops.neg(T0)\n"
      "fd.add_output(T1)");
  try {
    runReference(s.fusion(), {floats({2, 3}, {1, 2, 3, 4, 5, 6})});
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("input 0 (T0) dimension 0: declared an expanded "
                           "broadcast"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("found stride 3"), std::string::npos) << message;
  }
}

TEST_F(ExpandedInputsTest, ExpandedExtentsMustAgreeWithOtherInputs) {
  const frontend::Script s = script(
      "T0 = fd.define_tensor(shape=[4, -1], contiguity=[None, True])\n"
      "T1 = fd.ops.neg(T0)\n"
      "fd.add_output(T1)");
  const Tensor row = floats({3}, {1, 2, 3}).asStrided({2, 3}, {0, 1}, 0);
  try {
    runReference(s.fusion(), {row});
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("dimension 0: expected size 4"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace fuserlab::runtime
