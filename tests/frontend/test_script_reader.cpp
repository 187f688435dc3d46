// readScript: every construct of the FusionDefinition dialect checked on the
// IR it builds (ranks, dtypes, extents, stride orders and contiguity in
// allocation order, constants, input order, outputs), and malformed scripts
// checked on their message and line:column.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/bounded_file.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;
using ir::ExprType;
using ir::Scalar;
using ir::TensorView;
using ir::Val;

class ScriptReaderTest : public ::testing::Test {
 protected:
  // The body of one definition (lines without indentation) in the usual
  // repro frame. Body line k is line 3 + k of the file, at column 5.
  static std::string frame(std::string_view body) {
    std::ostringstream out;
    out << "from nvfuser import FusionDefinition, DataType\n\n"
        << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
    out << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
    return out.str();
  }

  void readBody(std::string_view body) { script_ = readScript(frame(body), "test.py"); }

  ir::Fusion& fusion() { return script_.fusion(); }

  // The value the script named `name`.
  Val* named(const std::string& name) {
    for (const auto& val : fusion().vals()) {
      if (val->scriptName() == name) return val.get();
    }
    ADD_FAILURE() << "no value named " << name;
    return nullptr;
  }
  TensorView* tensor(const std::string& name) {
    Val* val = named(name);
    return val ? val->as<TensorView>() : nullptr;
  }

  // Per logical axis: the constant extent, -1 if symbolic.
  static std::vector<int64_t> extents(const TensorView* tv) {
    std::vector<int64_t> out;
    for (ir::IterDomain* id : tv->logicalNoReductions()) {
      out.push_back(id->extentForIteration()->constInt().value_or(-1));
    }
    return out;
  }
  static std::vector<bool> broadcasts(const TensorView* tv) {
    std::vector<bool> out;
    for (ir::IterDomain* id : tv->logicalNoReductions()) {
      out.push_back(id->isBroadcast());
    }
    return out;
  }
  using Contiguity = std::vector<std::optional<bool>>;

  static UserError errorOf(const std::string& source) {
    try {
      readScript(source, "test.py");
    } catch (const UserError& error) {
      return error;
    }
    ADD_FAILURE() << "no error for:\n" << source;
    return UserError("no error");
  }

  // The error a definition body raises, at body line `line`, `column` of
  // the unindented body text.
  static void expectBodyError(std::string_view body, int line, int column,
                              std::string_view message) {
    expectError(frame(body), line + 3, column + 4, message);
  }

  static void expectError(const std::string& source, int line, int column,
                          std::string_view message) {
    UserError error = errorOf(source);
    ASSERT_TRUE(error.location().has_value()) << error.what();
    EXPECT_EQ(error.location()->file, "test.py");
    EXPECT_EQ(error.location()->line, line) << error.what();
    EXPECT_EQ(error.location()->column, column) << error.what();
    EXPECT_FALSE(error.location()->lineText.empty());
    EXPECT_NE(error.message().find(message), std::string::npos)
        << "message: " << error.message() << "\nexpected: " << message;
  }

  Script script_;
};

TEST_F(ScriptReaderTest, ShapeGivesSymbolicBroadcastAndConstantExtents) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, 1, 4], contiguity=[True, None, True], "
      "dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])\n"
      "fd.add_output(T0)");
  ASSERT_EQ(fusion().inputs().size(), 1u);
  TensorView* t0 = fusion().inputs()[0]->as<TensorView>();
  ASSERT_NE(t0, nullptr);
  EXPECT_EQ(t0->scriptName(), "T0");
  EXPECT_EQ(t0->dtype(), DataType::BFloat16);
  EXPECT_EQ(extents(t0), (std::vector<int64_t>{-1, 1, 4}));
  EXPECT_EQ(broadcasts(t0), (std::vector<bool>{false, true, false}));
  EXPECT_FALSE(t0->logical()[0]->extent()->isConst());
  EXPECT_FALSE(t0->domain().hasAllocation()) << "[2, 1, 0] is row-major";
  EXPECT_EQ(t0->contiguity(), (Contiguity{true, std::nullopt, true}));
  EXPECT_FALSE(t0->isCpuScalar());
}

TEST_F(ScriptReaderTest, DefaultsAreFloatAndNonContiguous) {
  readBody("T0 = fd.define_tensor(shape=[-1, -1])\nfd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(t0->dtype(), DataType::Float);
  EXPECT_EQ(t0->contiguity(), (Contiguity{false, false}));
}

TEST_F(ScriptReaderTest, ContiguityIsGivenInAllocationOrder) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, False, "
      "True], dtype=DataType.Float, stride_order=[1, 2, 0])\n"
      "T1 = fd.define_tensor(shape=[1, -1], contiguity=[True, None], "
      "stride_order=[0, 1])\n"
      "fd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(t0->strideOrder(), (std::vector<int64_t>{1, 2, 0}));
  // Axis 1 has the largest stride, then axis 0, then axis 2.
  const auto& allocation = t0->maybeAllocation();
  ASSERT_EQ(allocation.size(), 3u);
  EXPECT_EQ(allocation[0], t0->logical()[1]);
  EXPECT_EQ(allocation[1], t0->logical()[0]);
  EXPECT_EQ(allocation[2], t0->logical()[2]);
  EXPECT_EQ(t0->contiguity(), (Contiguity{true, false, true}));
  // Column-major with a broadcast outer axis: the broadcast is innermost in
  // memory, so its None comes last.
  TensorView* t1 = tensor("T1");
  EXPECT_EQ(t1->strideOrder(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(t1->maybeAllocation()[1], t1->logical()[0]);
  EXPECT_EQ(t1->contiguity(), (Contiguity{true, std::nullopt}));
}

TEST_F(ScriptReaderTest, OneBoolContiguityAppliesToEveryAxis) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, 1], contiguity=True)\n"
      "T1 = fd.define_tensor(shape=[3], contiguity=False)\n"
      "fd.add_output(T0)");
  EXPECT_EQ(tensor("T0")->contiguity(), (Contiguity{true, std::nullopt}));
  EXPECT_EQ(tensor("T1")->contiguity(), (Contiguity{false}));
}

TEST_F(ScriptReaderTest, CpuScalarTensor) {
  readBody(
      "T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Double, "
      "is_cpu=True)\nfd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_TRUE(t0->isCpuScalar());
  EXPECT_EQ(t0->rank(), 0);
  expectBodyError("T0 = fd.define_tensor(shape=[-1], is_cpu=True)", 1, 42,
                  "is_cpu=True is only for 0-dim");
}

TEST_F(ScriptReaderTest, SizesAndStridesGiveContiguityAndStrideOrder) {
  readBody(
      "T0 = fd.define_tensor(sizes=[512, 4096], strides=[4096, 1], "
      "dtype=DataType.BFloat16)\n"
      "T1 = fd.define_tensor(sizes=[1, 4096], strides=[4096, 1])\n"
      "T2 = fd.define_tensor(sizes=[4, 8], strides=[1, 4], static_sizes=True)\n"
      "T3 = fd.define_tensor(sizes=[4, 8], strides=[16, 1])\n"
      "T4 = fd.define_tensor(sizes=[2, 3, 4, 5], strides=[60, 1, 15, 3])\n"
      "T5 = fd.define_tensor(sizes=[4, 1, 8], strides=[8, 8, 1])\n"
      "fd.add_output(T0)");
  TensorView* t0 = tensor("T0");
  EXPECT_EQ(t0->dtype(), DataType::BFloat16);
  EXPECT_EQ(extents(t0), (std::vector<int64_t>{-1, -1}));
  EXPECT_FALSE(t0->domain().hasAllocation());
  EXPECT_EQ(t0->contiguity(), (Contiguity{true, true}));

  TensorView* t1 = tensor("T1");
  EXPECT_EQ(broadcasts(t1), (std::vector<bool>{true, false}));
  EXPECT_EQ(t1->contiguity(), (Contiguity{std::nullopt, true}));

  TensorView* t2 = tensor("T2");
  EXPECT_EQ(extents(t2), (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(t2->strideOrder(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(t2->contiguity(), (Contiguity{true, true}));

  EXPECT_EQ(tensor("T3")->contiguity(), (Contiguity{false, true}));

  TensorView* t4 = tensor("T4");  // NCHW in channels-last memory
  EXPECT_EQ(t4->strideOrder(), (std::vector<int64_t>{3, 0, 2, 1}));
  EXPECT_EQ(t4->contiguity(), (Contiguity{true, true, true, true}));

  TensorView* t5 = tensor("T5");  // equal strides keep their order
  EXPECT_FALSE(t5->domain().hasAllocation());
  EXPECT_EQ(t5->contiguity(), (Contiguity{true, std::nullopt, true}));
}

TEST_F(ScriptReaderTest, ScalarConstantsAndSymbolicInputsInDefinitionOrder) {
  readBody(
      "S0 = fd.define_scalar(2)\n"
      "S1 = fd.define_scalar(1.5)\n"
      "S2 = fd.define_scalar(True)\n"
      "S3 = fd.define_scalar(float(\"inf\"))\n"
      "S4 = fd.define_scalar(float('-inf'), dtype=DataType.Double)\n"
      "S5 = fd.define_scalar(float(\"nan\"))\n"
      "S6 = fd.define_scalar(-3, dtype=DataType.Int)\n"
      "S7 = fd.define_scalar(1/1600, dtype=DataType.Double)\n"
      "S8 = fd.define_scalar(2, dtype=DataType.Float)\n"
      "T9 = fd.define_tensor(shape=[-1])\n"
      "S10 = fd.define_scalar(dtype=DataType.Int)\n"
      "S11 = fd.define_scalar(None, dtype=DataType.Bool)\n"
      "T12 = fd.define_tensor(shape=[-1])\n"
      "S13 = fd.define_scalar()\n"
      "S14 = fd.define_scalar(-2**3 + 7 // 2 * 2, dtype=DataType.Int)\n"
      "fd.add_output(T9)");
  auto constant = [&](const char* name) { return named(name)->as<Scalar>(); };
  EXPECT_EQ(constant("S0")->dtype(), DataType::Int);
  EXPECT_EQ(constant("S0")->constInt(), 2);
  EXPECT_EQ(constant("S1")->dtype(), DataType::Double);
  EXPECT_EQ(constant("S1")->constDouble(), 1.5);
  EXPECT_EQ(constant("S2")->dtype(), DataType::Bool);
  EXPECT_EQ(constant("S2")->constInt(), 1);
  EXPECT_TRUE(std::isinf(*constant("S3")->constDouble()));
  EXPECT_LT(*constant("S4")->constDouble(), 0);
  EXPECT_TRUE(std::isnan(*constant("S5")->constDouble()));
  EXPECT_EQ(constant("S6")->constInt(), -3);
  EXPECT_DOUBLE_EQ(*constant("S7")->constDouble(), 1.0 / 1600);
  EXPECT_EQ(constant("S8")->dtype(), DataType::Float);
  EXPECT_EQ(constant("S8")->constDouble(), 2.0);
  EXPECT_EQ(constant("S14")->constInt(), -2);

  const auto& inputs = fusion().inputs();
  ASSERT_EQ(inputs.size(), 5u);
  EXPECT_EQ(inputs[0]->scriptName(), "T9");
  EXPECT_EQ(inputs[1]->scriptName(), "S10");
  EXPECT_EQ(inputs[1]->dtype(), DataType::Int);
  EXPECT_FALSE(inputs[1]->as<Scalar>()->isConst());
  EXPECT_EQ(inputs[2]->scriptName(), "S11");
  EXPECT_EQ(inputs[2]->dtype(), DataType::Bool);
  EXPECT_EQ(inputs[3]->scriptName(), "T12");
  EXPECT_EQ(inputs[4]->scriptName(), "S13");
  EXPECT_EQ(inputs[4]->dtype(), DataType::Double);
}

TEST_F(ScriptReaderTest, VectorsSizesAndShapes) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1, 6])\n"
      "S1 = fd.define_scalar(dtype=DataType.Int)\n"
      "V2 = fd.define_vector([S1, 128, T0.size(1)], dtype=DataType.Int)\n"
      "T3 = fd.ops.reshape(T0, new_shape=V2)\n"
      "T7 = fd.define_tensor(shape=[1, 1, -1])\n"
      "T4 = fd.ops.expand(T7, shape=T0.shape())\n"
      "S5 = T0.size(-1)\n"
      "T6 = fd.ops.reshape(T0, [T0.size(0), -1])\n"
      "fd.add_output(T3)\nfd.add_output(T4)\nfd.add_output(S5)\n"
      "fd.add_output(T6)");
  TensorView* t0 = tensor("T0");
  TensorView* t3 = tensor("T3");
  ASSERT_EQ(t3->rank(), 3);
  EXPECT_EQ(t3->logical()[0]->extent(), named("S1"));
  EXPECT_EQ(t3->logical()[1]->extent()->constInt(), 128);
  EXPECT_EQ(t3->logical()[2]->extent(), t0->logical()[1]->extent());
  TensorView* t4 = tensor("T4");
  EXPECT_EQ(t4->logical()[0]->expandedExtent(), t0->logical()[0]->extent());
  EXPECT_EQ(t4->logical()[1]->expandedExtent(), t0->logical()[1]->extent());
  EXPECT_EQ(named("S5")->as<Scalar>()->constInt(), 6);
  EXPECT_EQ(tensor("T6")->logical()[0]->extent(), t0->logical()[0]->extent());
  EXPECT_EQ(fusion().outputs().size(), 4u);
  EXPECT_EQ(fusion().outputs()[2].val, named("S5"));
}

TEST_F(ScriptReaderTest, ElementwiseOpsWithLiteralsAndKeywords) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)\n"
      "T1 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Int)\n"
      "T2 = fd.ops.exp(T0)\n"
      "T3 = fd.ops.mul(T2, 2.0)\n"
      "T4 = fd.ops.div(T1, 2)\n"
      "T5 = fd.ops.truediv(T1, 2)\n"
      "T6 = fd.ops.gt(T0, 0.0)\n"
      "T7 = fd.ops.where(T6, T0, 0.0)\n"
      "T8 = fd.ops.lerp(T0, T3, 0.5)\n"
      "T9 = fd.ops.clamp(T0, -1.0, 1.0)\n"
      "T10 = fd.ops.addcmul(T0, T2, T3, value=0.5)\n"
      "T11 = fd.ops.cast(arg=T1, dtype=DataType.Half)\n"
      "T12 = fd.ops.bitwise_left_shift(T1, 3)\n"
      "T13 = -T0 + T2 * 3\n"
      "T14 = fd.ops.isnan(T0)\n"
      "fd.add_output(T13)");
  EXPECT_EQ(tensor("T2")->definition()->type(), ExprType::Unary);
  Val* two = tensor("T3")->definition()->input(1);
  ASSERT_TRUE(two->isA<Scalar>());
  EXPECT_EQ(two->dtype(), DataType::Double);
  EXPECT_EQ(two->as<Scalar>()->constDouble(), 2.0);
  EXPECT_EQ(tensor("T4")->dtype(), DataType::Int) << "div of ints truncates";
  EXPECT_EQ(tensor("T5")->dtype(), DataType::Float) << "truediv promotes";
  EXPECT_EQ(tensor("T6")->dtype(), DataType::Bool);
  EXPECT_EQ(tensor("T7")->definition()->type(), ExprType::Ternary);
  EXPECT_EQ(tensor("T8")->definition()->attrs().ternaryOp, ir::TernaryOpType::Lerp);
  EXPECT_EQ(tensor("T9")->definition()->attrs().ternaryOp, ir::TernaryOpType::Clamp);
  EXPECT_EQ(tensor("T10")->definition()->inputs().size(), 4u);
  EXPECT_EQ(tensor("T11")->dtype(), DataType::Half);
  EXPECT_EQ(tensor("T12")->dtype(), DataType::Int);
  EXPECT_EQ(tensor("T13")->definition()->attrs().binaryOp, ir::BinaryOpType::Add);
  EXPECT_EQ(tensor("T14")->dtype(), DataType::Bool);
}

TEST_F(ScriptReaderTest, ReductionsAndTupleResults) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1, -1])\n"
      "T1 = fd.ops.sum(T0, 1)\n"
      "T2 = fd.ops.sum(T0, dims=[0, 2], keepdim=True, dtype=DataType.Double)\n"
      "T3 = fd.ops.sum(T0, dtype=DataType.Float)\n"
      "T4 = fd.ops.max(T0, [-1])\n"
      "T5, T6 = fd.ops.var_mean(T0, dims=[2], correction=0, keepdim=False)\n"
      "R7 = fd.ops.var_mean(T0, [1])\n"
      "T8 = R7[0]\n"
      "T9 = R7[-1]\n"
      "T10, T11, T12 = fd.ops.welford(T0, dims=[2])\n"
      "T13 = fd.ops.var(T0, [0, 1], correction=1)\n"
      "fd.add_output(T8)");
  EXPECT_EQ(tensor("T1")->rank(), 2);
  EXPECT_EQ(tensor("T1")->definition()->attrs().axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(tensor("T2")->rank(), 3);
  EXPECT_EQ(broadcasts(tensor("T2")), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(tensor("T3")->rank(), 0) << "no dims reduces every axis";
  EXPECT_EQ(tensor("T4")->definition()->attrs().reductionOp, ir::ReductionOpType::Max);
  EXPECT_EQ(tensor("T5")->rank(), 2);
  EXPECT_EQ(tensor("T6")->definition()->type(), ExprType::Welford);
  EXPECT_EQ(tensor("T8")->rank(), 2);
  EXPECT_EQ(tensor("T9")->definition()->type(), ExprType::Welford);
  EXPECT_EQ(tensor("T12")->dtype(), DataType::Int);
  EXPECT_EQ(tensor("T13")->rank(), 1);
}

TEST_F(ScriptReaderTest, ShapeAndIndexingOps) {
  readBody(
      "T0 = fd.define_tensor(shape=[1, -1, -1], dtype=DataType.Float)\n"
      "T1 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n"
      "I2 = fd.define_tensor(shape=[-1], dtype=DataType.Int)\n"
      "T3 = fd.ops.squeeze(T0, dims=[0])\n"
      "T4 = fd.ops.slice(T3, start_indices=[0, 2], end_indices=[4, 10], "
      "strides=[1, 2])\n"
      "T5 = fd.ops.reshape(T4, [4, 2, 2])\n"
      "T6 = fd.ops.reshape(T5, [4, 2, 2], [16])\n"
      "T7 = fd.ops.permute(T5, dims=[2, 0, 1])\n"
      "T8 = fd.ops.broadcast_in_dim(T1, shape=[3, 1], broadcast_dims=[0])\n"
      "T9 = fd.ops.expand(T8, shape=[3, 5])\n"
      "T10 = fd.ops.broadcast(T1, is_broadcast_dim=[True, False])\n"
      "T11 = fd.ops.pad(T6, [1, 2], 0.0)\n"
      "T12 = fd.ops.cat([T6, T6], dim=0)\n"
      "T13 = fd.ops.set(T12)\n"
      "T14 = fd.ops.segment_set(T13)\n"
      "T15 = fd.ops.stride_order(T7, stride_order=[0, 1, 2])\n"
      "T16 = fd.ops.full(shape=[2, 3], fill_value=1.5, dtype=DataType.Half)\n"
      "T17 = fd.ops.iota(8, dtype=DataType.Int)\n"
      "T18 = fd.ops.index_select(T1, I2, dim=0)\n"
      "T19 = fd.ops.take_along_axis(T1, I2, 0)\n"
      "T20 = fd.ops.gather(T1, I2, dim=0)\n"
      "fd.add_output(T11)");
  EXPECT_EQ(tensor("T3")->rank(), 2);
  EXPECT_EQ(extents(tensor("T4")), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(extents(tensor("T5")), (std::vector<int64_t>{4, 2, 2}));
  EXPECT_EQ(extents(tensor("T6")), (std::vector<int64_t>{16}));
  EXPECT_EQ(extents(tensor("T7")), (std::vector<int64_t>{2, 4, 2}));
  EXPECT_EQ(extents(tensor("T9"))[1], 5);
  EXPECT_EQ(broadcasts(tensor("T10")), (std::vector<bool>{true, false}));
  EXPECT_EQ(extents(tensor("T11")), (std::vector<int64_t>{19}));
  EXPECT_EQ(extents(tensor("T12")), (std::vector<int64_t>{32}));
  EXPECT_EQ(tensor("T13")->definition()->type(), ExprType::Set);
  EXPECT_EQ(tensor("T14")->definition()->type(), ExprType::SegmentSet);
  EXPECT_EQ(tensor("T15")->strideOrder(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(tensor("T16")->dtype(), DataType::Half);
  EXPECT_EQ(extents(tensor("T17")), (std::vector<int64_t>{8}));
  EXPECT_EQ(tensor("T18")->definition()->type(), ExprType::IndexSelect);
  EXPECT_EQ(tensor("T19")->definition()->type(), ExprType::Gather);
  EXPECT_EQ(tensor("T20")->definition()->type(), ExprType::Gather);
}

TEST_F(ScriptReaderTest, LibraryCallOps) {
  readBody(
      "T0 = fd.define_tensor(shape=[8, 16], dtype=DataType.BFloat16)\n"
      "T1 = fd.define_tensor(shape=[16, 4], dtype=DataType.BFloat16)\n"
      "T2 = fd.define_tensor(shape=[4, 16], dtype=DataType.BFloat16)\n"
      "T3 = fd.define_tensor(shape=[4], dtype=DataType.BFloat16)\n"
      "Q = fd.define_tensor(shape=[2, 4, 8, 16], dtype=DataType.Half)\n"
      "T4 = fd.ops.matmul(T0, T1)\n"
      "T5 = fd.ops.linear(T0, T2, bias=T3)\n"
      "T6 = fd.ops.linear(T0, T2)\n"
      "T7, T8, T9, T10 = fd.ops.sdpfa_fwd(Q, Q, Q, dropout_p=0.0, "
      "is_causal=True, scale=None)\n"
      "fd.add_output(T4)");
  EXPECT_EQ(extents(tensor("T4")), (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(tensor("T5")->definition()->inputs().size(), 3u);
  EXPECT_EQ(tensor("T6")->definition()->inputs().size(), 2u);
  EXPECT_EQ(extents(tensor("T7")), (std::vector<int64_t>{2, 4, 8, 16}));
  EXPECT_EQ(tensor("T8")->dtype(), DataType::Float);
  EXPECT_TRUE(tensor("T9")->isCpuScalar());
  EXPECT_EQ(tensor("T10")->rank(), 0);
}

TEST_F(ScriptReaderTest, OutputsAliasesAndStrideOrders) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True])\n"
      "T1 = fd.ops.exp(T0)\n"
      "T2 = fd.ops.sum(T0, dims=[1])\n"
      "S3 = fd.define_scalar(dtype=DataType.Double)\n"
      "fd.add_output(T1, alias_input=T0)\n"
      "fd.add_output(T1, stride_order=[0, 1])\n"
      "fd.add_output(T0, stride_order=[0, 1])\n"
      "T4 = fd.ops.neg(T0)\n"
      "fd.add_output(T4, [0, 1])\n"
      "fd.add_output(T2, stride_order=[0])\n"
      "fd.add_output(S3)");
  const auto& outputs = fusion().outputs();
  ASSERT_EQ(outputs.size(), 6u);
  EXPECT_EQ(outputs[0].val, named("T1"));
  EXPECT_EQ(outputs[0].aliasOf, named("T0"));
  // T1 is already an output and T0 an input: copies carry the stride order.
  for (int i : {1, 2}) {
    TensorView* copy = outputs[i].val->as<TensorView>();
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->definition()->type(), ExprType::Set);
    EXPECT_EQ(copy->strideOrder(), (std::vector<int64_t>{0, 1}));
  }
  EXPECT_FALSE(named("T0")->as<TensorView>()->domain().hasAllocation());
  EXPECT_EQ(outputs[3].val, named("T4")) << "a computed tensor is laid out";
  EXPECT_EQ(tensor("T4")->strideOrder(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(outputs[4].val->definition()->type(), ExprType::Set)
      << "a reduction output keeps its reduced axis; a copy drops it";
  EXPECT_EQ(outputs[5].val, named("S3"));
}

TEST_F(ScriptReaderTest, OlderNvFuserSpellings) {
  readBody(
      "T0 = fd.define_tensor(symbolic_sizes=[-1, 1], contiguity=[True, None], "
      "dtype=DataType.Float, is_cpu=False)\n"
      "T1 = fd.ops.sum(T0, axes=[0], keepdim=False, dtype=DataType.Null)\n"
      "T2 = fd.ops.broadcast_in_dim(T1, output_shape=[4, 1], "
      "broadcast_dims=[1])\n"
      "T3 = fd.ops.squeeze(T0, [-1, 1], [1])\n"
      "T4, T5 = fd.ops.var_mean(T0, axes=[0], correction=1, keepdim=False)\n"
      "S6 = fd.define_constant(3.0)\n"
      "fd.add_output(T2)");
  EXPECT_EQ(extents(tensor("T0")), (std::vector<int64_t>{-1, 1}));
  EXPECT_EQ(tensor("T1")->rank(), 1);
  EXPECT_EQ(extents(tensor("T2")), (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(tensor("T3")->rank(), 1);
  EXPECT_EQ(tensor("T4")->rank(), 1);
  EXPECT_EQ(named("S6")->as<Scalar>()->constDouble(), 3.0);
}

TEST_F(ScriptReaderTest, SeveralDefinitionsAndTheExecutedOne) {
  const std::string source = R"(import torch
from nvfuser import FusionDefinition, DataType

def first(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1])
    fd.add_output(T0)

def second(fd : FusionDefinition, eps=1e-05) -> None :
    """A docstring."""
    T0 = fd.define_tensor(shape=[-1, -1])
    T1 = fd.define_tensor(shape=[-1, -1])
    S2 = fd.define_scalar(eps)
    T3 = fd.ops.add(T0, T1)
    fd.add_output(T3)
    return

def third(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[2])
    fd.add_output(T0)

with FusionDefinition() as fd:
    second(fd)

inputs = [torch.randn(2, 3), torch.randn(2, 3)]
out = fd.execute(inputs)
print(out[0])
)";
  Script script = readScript(source, "test.py");
  ASSERT_EQ(script.definitions.size(), 3u);
  EXPECT_EQ(script.definitions[0].functionName, "first");
  EXPECT_EQ(script.definitions[1].location.line, 8);
  EXPECT_EQ(script.executed, 1u);
  EXPECT_EQ(script.fusion().inputs().size(), 2u);
  ASSERT_TRUE(script.inputs.has_value());
  EXPECT_EQ(script.inputs->size(), 2u);
  // Each definition numbers its own values from T0.
  EXPECT_EQ(script.definitions[2].fusion->inputs()[0]->name(), "T0");

  // Without a with-block the last definition is the one the script builds.
  Script noBlock = readScript(source.substr(0, source.find("with ")), "t.py");
  EXPECT_EQ(noBlock.executed, 2u);
  EXPECT_FALSE(noBlock.inputs.has_value());
}

TEST_F(ScriptReaderTest, InlineWithBlockAndMainGuard) {
  Script script = readScript(R"(import torch
from nvfuser import FusionDefinition, DataType

if __name__ == "__main__":
    with FusionDefinition() as fd:
        T0 = fd.define_tensor(shape=[-1], dtype=DataType.Half)
        T1 = fd.ops.relu(T0)
        fd.add_output(T1)
    inputs = [torch.randn(8, dtype=torch.float16)]
    fd.execute(inputs)
)",
                             "inline.py");
  ASSERT_EQ(script.definitions.size(), 1u);
  EXPECT_EQ(script.definitions[0].functionName, "fusion");
  EXPECT_EQ(script.definitions[0].location.line, 5);
  EXPECT_EQ(script.fusion().outputs().size(), 1u);
  EXPECT_EQ(script.inputs->size(), 1u);
}

TEST_F(ScriptReaderTest, ReadsSeed001Repro) {
  // nvFuser PR #2815's test_nanogpt_layer_norm reproducer, as printed there.
  const std::string repro = R"(import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[2], correction=0, keepdim=False)
    S6 = fd.define_scalar(16, dtype=DataType.Int)
    S7 = fd.define_scalar(128, dtype=DataType.Int)
    S8 = fd.define_scalar(1, dtype=DataType.Int)
    V9 = fd.define_vector([S6, S7, S8], dtype=DataType.Int)
    T10 = fd.ops.broadcast_in_dim(T4, shape=V9, broadcast_dims=[0, 1])
    S11 = fd.define_scalar(16, dtype=DataType.Int)
    S12 = fd.define_scalar(128, dtype=DataType.Int)
    S13 = fd.define_scalar(1, dtype=DataType.Int)
    V14 = fd.define_vector([S11, S12, S13], dtype=DataType.Int)
    T15 = fd.ops.broadcast_in_dim(T5, shape=V14, broadcast_dims=[0, 1])
    S16 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T17 = fd.ops.add(T10, S16)
    T18 = fd.ops.rsqrt(T17)
    S19 = fd.define_scalar(16, dtype=DataType.Int)
    S20 = fd.define_scalar(128, dtype=DataType.Int)
    S21 = fd.define_scalar(1600, dtype=DataType.Int)
    V22 = fd.define_vector([S19, S20, S21], dtype=DataType.Int)
    T23 = fd.ops.broadcast_in_dim(T15, shape=V22, broadcast_dims=[0, 1, 2])
    T24 = fd.ops.sub(T3, T23)
    S25 = fd.define_scalar(16, dtype=DataType.Int)
    S26 = fd.define_scalar(128, dtype=DataType.Int)
    S27 = fd.define_scalar(1600, dtype=DataType.Int)
    V28 = fd.define_vector([S25, S26, S27], dtype=DataType.Int)
    T29 = fd.ops.broadcast_in_dim(T18, shape=V28, broadcast_dims=[0, 1, 2])
    T30 = fd.ops.mul(T24, T29)
    S31 = fd.define_scalar(16, dtype=DataType.Int)
    S32 = fd.define_scalar(128, dtype=DataType.Int)
    S33 = fd.define_scalar(1600, dtype=DataType.Int)
    V34 = fd.define_vector([S31, S32, S33], dtype=DataType.Int)
    T35 = fd.ops.broadcast_in_dim(T1, shape=V34, broadcast_dims=[2])
    T36 = fd.ops.cast(T35, dtype=DataType.Float)
    T37 = fd.ops.mul(T30, T36)
    S38 = fd.define_scalar(16, dtype=DataType.Int)
    S39 = fd.define_scalar(128, dtype=DataType.Int)
    S40 = fd.define_scalar(1600, dtype=DataType.Int)
    V41 = fd.define_vector([S38, S39, S40], dtype=DataType.Int)
    T42 = fd.ops.broadcast_in_dim(T2, shape=V41, broadcast_dims=[2])
    T43 = fd.ops.cast(T42, dtype=DataType.Float)
    T44 = fd.ops.add(T37, T43)
    T45 = fd.ops.cast(T44, dtype=DataType.BFloat16)
    fd.add_output(T45)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(3276800, dtype=torch.bfloat16, device='cuda:0').as_strided((16, 128, 1600), (204800, 1600, 1)),
    torch.randn(1600, dtype=torch.bfloat16, device='cuda:0').as_strided((1600,), (1,)),
    torch.randn(1600, dtype=torch.bfloat16, device='cuda:0').as_strided((1600,), (1,)),
]
fd.execute(inputs)
)";
  script_ = readScript(repro, "seed001.py");
  EXPECT_EQ(script_.definitions.at(0).functionName, "nvfuser_fusion_id0");
  ASSERT_EQ(fusion().inputs().size(), 3u);
  ASSERT_EQ(fusion().outputs().size(), 1u);
  TensorView* out = fusion().outputs()[0].val->as<TensorView>();
  EXPECT_EQ(out->scriptName(), "T45");
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  EXPECT_EQ(out->rank(), 3);
  // T1 [i] broadcast to [16, 128, 1600]: two new axes expanded, T1's own
  // axis kept (its extent is checked against 1600 when the fusion runs).
  EXPECT_EQ(extents(tensor("T35")), (std::vector<int64_t>{16, 128, -1}));
  EXPECT_EQ(extents(tensor("T10"))[2], 1);
  EXPECT_EQ(named("S16")->as<Scalar>()->constDouble(), 1e-05);
  ASSERT_TRUE(script_.inputs.has_value());
  ASSERT_EQ(script_.inputs->size(), 3u);
  const InputSpec& first = (*script_.inputs)[0];
  EXPECT_EQ(first.dtype, DataType::BFloat16);
  EXPECT_EQ(first.sizes, (std::vector<int64_t>{3276800}));
  EXPECT_EQ(first.stridedSizes, (std::vector<int64_t>{16, 128, 1600}));
  EXPECT_EQ(first.stridedStrides, (std::vector<int64_t>{204800, 1600, 1}));
  EXPECT_EQ(first.device, "cuda:0");
  EXPECT_EQ(first.location.line, 56);
}

// ---- Errors ------------------------------------------------------------

TEST_F(ScriptReaderTest, UnknownNameIsReportedAtTheName) {
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.exp(T7)", 2, 17,
                  "T7 is not defined");
}

TEST_F(ScriptReaderTest, UnexpectedKeywordListsTheParameters) {
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.sum(T0, axis=[0])", 2, 21,
                  "fd.ops.sum got an unexpected keyword argument 'axis'; expected: arg, "
                  "dims, keepdim, dtype");
}

TEST_F(ScriptReaderTest, WrongArgumentTypeNamesArgumentAndKind) {
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.exp([T0])", 2, 17,
                  "for argument 'arg' of fd.ops.exp, found a list");
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.sum(T0, dims=[0.5])", 2, 26,
                  "expected an int or a list of ints for argument 'dims' of fd.ops.sum, "
                  "found a list containing a float");
}

TEST_F(ScriptReaderTest, WrongArgumentCounts) {
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.exp(T0, T0)", 2, 21,
                  "fd.ops.exp takes at most 1 argument (arg) but 2 were given");
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.add(T0)", 2, 6,
                  "fd.ops.add is missing the required argument 'arg2'");
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.add(T0, T0, arg1=T0)", 2, 25,
                  "fd.ops.add got multiple values for argument 'arg1'");
}

TEST_F(ScriptReaderTest, UnknownAndRandomOps) {
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.frobnicate(T0)", 2, 6,
                  "unknown op fd.ops.frobnicate");
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = fd.ops.bernoulli(T0)", 2, 6,
                  "fd.ops.bernoulli is not supported by FuserLab yet");
  // Reached through getattr, the op was "unknown op the call".
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nT1 = getattr(fd.ops, 'frob')(T0)", 2, 6,
                  "unknown op fd.ops.frob: nvFuser has no op of that name");
}

TEST_F(ScriptReaderTest, OpBuilderErrorsGetTheCallsLocation) {
  expectBodyError("T0 = fd.define_tensor(shape=[-1, -1])\nT1 = fd.ops.sum(T0, dims=[5])", 2, 6,
                  "sum: axis 5 is out of range");
  expectBodyError(
      "T0 = fd.define_tensor(shape=[2, 3])\n"
      "T1 = fd.ops.add(T0, fd.ops.reshape(T0, [7]))",
      2, 21, "reshape of T0");
}

TEST_F(ScriptReaderTest, DefineTensorMistakes) {
  expectBodyError("T0 = fd.define_tensor(shape=[-1, -2])", 1, 29, "shape[1] is -2; expected -1");
  expectBodyError("T0 = fd.define_tensor(shape=[-1], contiguity=[True, True])", 1, 46,
                  "contiguity has 2 entries but the tensor has 1 axes");
  expectBodyError("T0 = fd.define_tensor(shape=[-1, -1], stride_order=[0, 0])", 1, 52,
                  "appears twice");
  expectBodyError("T0 = fd.define_tensor(shape=[-1], dtype=DataType.Foo)", 1, 41,
                  "DataType.Foo is not a DataType");
}

TEST_F(ScriptReaderTest, UnpackingAndStatementMistakes) {
  expectBodyError(
      "T0 = fd.define_tensor(shape=[-1, -1])\n"
      "T1, T2, T3 = fd.ops.var_mean(T0, dims=[1])",
      2, 1, "expected 3 values to unpack, found 2");
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nif T0:\n    fd.add_output(T0)", 2, 4,
                  "the truth value of a tensor is not known while the fusion is defined");
  expectBodyError("T0 = fd.define_tensor(shape=[-1])\nfd.frobnicate(T0)", 2, 1,
                  "fd.frobnicate is not a FusionDefinition method");
}

TEST_F(ScriptReaderTest, TopLevelMistakes) {
  expectError("import torch\nx.y()\n", 2, 1, "x is not defined");
  expectError(
      "import contextlib\nwith contextlib.nullcontext() as fd:\n"
      "    pass\n",
      1, 1, "no fusion definition found");
  expectError("import torch\n\n", 1, 1, "no fusion definition found");
  expectError(
      "from nvfuser import FusionDefinition\n"
      "with FusionDefinition() as fd:\n    missing(fd)\n",
      3, 5, "missing is not defined");
  expectError("def f(fd, x):\n    pass\n", 1, 11, "parameter 'x' of f has no default value");
  expectError("def f(fd):\n    pass\ninputs = [torch.tensor([[1.0], [2.0, 3.0]])]\n", 3, 24,
              "torch.tensor: the nested lists are not rectangular");
}

TEST_F(ScriptReaderTest, ConstantOverflowIsAUserError) {
  expectBodyError("S0 = fd.define_scalar(2**62 * 4)", 1, 29, "integer overflow");
  expectBodyError("S0 = fd.define_scalar(9223372036854775807)\nS1 = fd.ops.add(S0, 1)", 2, 6,
                  "overflows 64-bit integers");
  expectBodyError(
      "S0 = fd.define_scalar(float('inf'))\n"
      "S1 = fd.ops.cast(S0, dtype=DataType.Int)",
      2, 6, "cannot be converted to Int");
}

// Issue 43 item 7: a script over ir::kMaxScriptBytes is refused by its size
// whether it comes from a file or is pasted into the workbench.
TEST_F(ScriptReaderTest, ScriptOverTheSizeBoundIsRefused) {
  std::string huge(ir::kMaxScriptBytes + 1, '\n');
  try {
    readScript(huge, "pasted.py");
    ADD_FAILURE() << "a script of " << huge.size() << " bytes was read";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              "pasted.py: the script holds 32.0 MiB, more than the 32 MiB FuserLab reads");
  }
}

// Issue 43 item 6: a size in --inputs is range-checked with the range named.
TEST_F(ScriptReaderTest, InputsOptionSizesAreRangeChecked) {
  for (const char* spec : {"99999999999999999999:f32", "-1x4:f32", "4x281474976710657:f32"}) {
    SCOPED_TRACE(spec);
    try {
      parseInputsOption(spec);
      ADD_FAILURE() << "accepted";
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what())
                    .find("a size expects an integer from 0 to 281474976710656, found"),
                std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(parseInputsOption("0x4:f32").at(0).sizes, (std::vector<int64_t>{0, 4}));
}

}  // namespace
}  // namespace fuserlab::frontend
