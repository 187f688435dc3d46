// 0-dim tensor operands on the CPU reference: a `define_tensor(shape=[])`
// combines with a tensor of any rank as a scalar does, in every elementwise
// path (unary, binary, predicates, where, lerp, clamp, addcmul, cast), on
// either side, and whether it lives on the GPU or is a CPU scalar
// (is_cpu=True). Values are checked by hand.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/fusion.h"
#include "core/reference/reference_run.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

class ZeroDimOperandsTest : public ::testing::Test {
 protected:
  void define(std::string_view body) {
    std::ostringstream out;
    out << "from nvfuser import FusionDefinition, DataType\n\n"
        << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
    out << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
    script_ = frontend::readScript(out.str(), "zero_dim.py");
  }

  std::vector<Tensor> run(const Arguments& inputs) {
    return runReference(script_.fusion(), inputs);
  }

  static Tensor scalarTensor(DataType dtype, double value) {
    Tensor t = Tensor::empty(dtype, {});
    t.fill(value);
    return t;
  }

  //! The [2, 2, 2] float tensor 1, 2, ..., 8.
  static Tensor cube() {
    Tensor t = Tensor::empty(DataType::Float, {2, 2, 2});
    float* data = t.dataAs<float>();
    for (int i = 0; i < 8; ++i) data[i] = float(i + 1);
    return t;
  }

  static std::vector<double> values(const Tensor& t) {
    const Tensor contiguous = t.to(DataType::Double).contiguous();
    const double* data = contiguous.dataAs<double>();
    return {data, data + contiguous.numel()};
  }

  const ir::Fusion& fusion() { return script_.fusion(); }

  frontend::Script script_;
};

constexpr std::string_view kInputs =
    "T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, "
    "is_cpu=False)\n"
    "T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], "
    "dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])\n";

TEST_F(ZeroDimOperandsTest, BinaryOpsOnEitherSide) {
  define(std::string(kInputs) +
         "T2 = fd.ops.mul(T0, T1)\n"
         "T3 = fd.ops.sub(T1, T0)\n"
         "T4 = fd.ops.add(T0, T0)\n"
         "fd.add_output(T2)\nfd.add_output(T3)\nfd.add_output(T4)");
  const std::vector<Tensor> out = run({scalarTensor(DataType::Float, 2), cube()});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(values(out[0]), (std::vector<double>{2, 4, 6, 8, 10, 12, 14, 16}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{-1, 0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(out[2].dim(), 0);
  EXPECT_EQ(values(out[2]), (std::vector<double>{4}));
}

TEST_F(ZeroDimOperandsTest, UnaryOfAZeroDimThenBroadcastAgainstRank3) {
  define(std::string(kInputs) +
         "T2 = fd.ops.neg(T0)\n"
         "T3 = fd.ops.add(T2, T1)\n"
         "T4 = fd.ops.abs(fd.ops.sub(T0, T1))\n"
         "fd.add_output(T3)\nfd.add_output(T4)");
  const std::vector<Tensor> out = run({scalarTensor(DataType::Float, 2), cube()});
  EXPECT_EQ(values(out[0]), (std::vector<double>{-1, 0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 0, 1, 2, 3, 4, 5, 6}));
}

TEST_F(ZeroDimOperandsTest, PredicatesAndWhere) {
  define(std::string(kInputs) +
         "T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Bool)\n"
         "T3 = fd.ops.gt(T1, T0)\n"
         "T4 = fd.ops.where(T3, T0, T1)\n"
         "T5 = fd.ops.where(T2, T1, T0)\n"
         "fd.add_output(T3)\nfd.add_output(T4)\nfd.add_output(T5)");
  Tensor yes = scalarTensor(DataType::Bool, 1);
  std::vector<Tensor> out = run({scalarTensor(DataType::Float, 2), cube(), yes});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0, 0, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 2, 2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
  out = run({scalarTensor(DataType::Float, 2), cube(), scalarTensor(DataType::Bool, 0)});
  EXPECT_EQ(out[2].sizes(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(values(out[2]), std::vector<double>(8, 2));
}

TEST_F(ZeroDimOperandsTest, LerpClampAndAddcmul) {
  define(std::string(kInputs) +
         "S2 = fd.define_scalar(0.5, dtype=DataType.Double)\n"
         "T3 = fd.ops.lerp(T1, T0, S2)\n"
         "T4 = fd.ops.clamp(T0, fd.define_scalar(0.0, dtype=DataType.Double), "
         "fd.define_scalar(1.5, dtype=DataType.Double))\n"
         "T5 = fd.ops.mul(T4, T1)\n"
         "T6 = fd.ops.addcmul(T1, T0, T1, S2)\n"
         "T7 = fd.ops.lerp(T0, T1, T0)\n"
         "fd.add_output(T3)\nfd.add_output(T5)\nfd.add_output(T6)\n"
         "fd.add_output(T7)");
  const std::vector<Tensor> out = run({scalarTensor(DataType::Float, 2), cube()});
  // lerp(x, 2, 0.5) = (x + 2) / 2.
  EXPECT_EQ(values(out[0]), (std::vector<double>{1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5}));
  // clamp(2, 0, 1.5) = 1.5.
  EXPECT_EQ(values(out[1]), (std::vector<double>{1.5, 3, 4.5, 6, 7.5, 9, 10.5, 12}));
  // x + 0.5 * 2 * x = 2x.
  EXPECT_EQ(values(out[2]), (std::vector<double>{2, 4, 6, 8, 10, 12, 14, 16}));
  // lerp(2, x, 2) = 2 + 2 * (x - 2) = 2x - 2.
  EXPECT_EQ(values(out[3]), (std::vector<double>{0, 2, 4, 6, 8, 10, 12, 14}));
}

TEST_F(ZeroDimOperandsTest, CastOfAZeroDimBesideBf16) {
  define(
      "T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double)\n"
      "T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16)\n"
      "T2 = fd.ops.cast(T0, dtype=DataType.BFloat16)\n"
      "T3 = fd.ops.mul(T1, T2)\n"
      "fd.add_output(T3)");
  Tensor rows = Tensor::empty(DataType::BFloat16, {2, 2});
  for (int64_t i = 0; i < 4; ++i) rows.set({i / 2, i % 2}, double(i + 1));
  const std::vector<Tensor> out = run({scalarTensor(DataType::Double, 0.5), rows});
  EXPECT_EQ(out[0].dtype(), DataType::BFloat16) << "a 0-dim operand promotes as a scalar";
  EXPECT_EQ(values(out[0]), (std::vector<double>{0.5, 1, 1.5, 2}));
}

TEST_F(ZeroDimOperandsTest, CpuScalarTensorOperand) {
  define(
      "T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, "
      "is_cpu=True)\n"
      "T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, "
      "True], dtype=DataType.Float)\n"
      "T2 = fd.ops.div(T1, T0)\n"
      "fd.add_output(T2)");
  const std::vector<Tensor> out = run({scalarTensor(DataType::Float, 4), cube()});
  EXPECT_EQ(values(out[0]), (std::vector<double>{0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2}));
}

}  // namespace
}  // namespace fuserlab::runtime
