#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ops/alias.h"
#include "core/ops/arith.h"
#include "core/ops/normalization.h"

namespace fuserlab::frontend {
namespace {

using ir::BinaryOpType;
using ir::DataType;
using ir::IterType;
using ir::TensorView;

class ScriptWriterTest : public ::testing::Test {
 protected:
  //! A fusion input; -1 a symbolic extent, 1 a broadcast axis, else constant.
  TensorView* input(const std::vector<int64_t>& shape,
                    DataType dtype = DataType::Float) {
    std::vector<ir::IterDomain*> axes;
    for (int64_t extent : shape) {
      ir::Scalar* size = extent == -1 ? fusion_.newScalar(DataType::Int)
                                      : fusion_.constInt(extent);
      axes.push_back(fusion_.newIterDomain(
          size, extent == 1 ? IterType::Broadcast : IterType::Iteration));
    }
    TensorView* tv = fusion_.newTensorView(axes, dtype);
    fusion_.addInput(tv);
    return tv;
  }

  ir::Fusion fusion_;
};

TEST_F(ScriptWriterTest, GoldenSmallFusion) {
  TensorView* x = input({-1, -1});
  TensorView* bias = input({-1}, DataType::Half);
  ir::Scalar* scale = fusion_.newScalar(DataType::Double);
  fusion_.addInput(scale);
  TensorView* rowSum = ops::sum(x, {1});
  TensorView* centered = ops::binaryOp(BinaryOpType::Sub, x,
                                       ops::broadcast(rowSum, {false, true}))
                             ->as<TensorView>();
  ir::Val* scaled = ops::binaryOp(BinaryOpType::Mul, centered, scale);
  ir::Val* half = ops::binaryOp(BinaryOpType::Mul, scaled,
                                fusion_.constDouble(0.5));
  TensorView* b = ops::broadcast(
      ops::cast(bias, DataType::Float)->as<TensorView>(), {true, false});
  ir::Val* sum = ops::binaryOp(BinaryOpType::Add, half, b);
  ir::Val* out = ops::cast(sum, DataType::BFloat16);
  TensorView* flat = ops::reshape(
      out->as<TensorView>(), {x->logical()[1]->extent(), fusion_.constInt(-1)});
  fusion_.addOutput(out);
  fusion_.addOutput(flat);
  fusion_.addOutput(rowSum);

  EXPECT_EQ(writeScript(fusion_, "nvfuser_fusion_id0"),
            R"(import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False, stride_order=[0])
    S3 = fd.define_scalar(None, dtype=DataType.Double)
    T2 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.broadcast(T2, is_broadcast_dim=[False, True])
    T4 = fd.ops.sub(T0, T3)
    T5 = fd.ops.mul(T4, S3)
    T6 = fd.ops.mul(T5, 0.5)
    T7 = fd.ops.cast(T1, dtype=DataType.Float)
    T8 = fd.ops.broadcast(T7, is_broadcast_dim=[True, False])
    T9 = fd.ops.add(T6, T8)
    T10 = fd.ops.cast(T9, dtype=DataType.BFloat16)
    S1 = T0.size(1)
    T11 = fd.ops.reshape(T10, new_shape=[S1, -1])
    fd.add_output(T10)
    fd.add_output(T11)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)
)");
}

TEST_F(ScriptWriterTest, WithoutBoilerplateWritesOnlyTheFunction) {
  TensorView* x = input({4, 1});
  fusion_.addOutput(ops::unaryOp(ir::UnaryOpType::Exp, x));
  EXPECT_EQ(writeScript(fusion_, "f", /*withBoilerplate=*/false),
            "def f(fd : FusionDefinition) -> None :\n"
            "    T0 = fd.define_tensor(shape=[4, 1], contiguity=[True, None], "
            "dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])\n"
            "    T1 = fd.ops.exp(T0)\n"
            "    fd.add_output(T1)\n");
}

TEST_F(ScriptWriterTest, VarMeanIsWrittenAsOneStatement) {
  TensorView* x = input({-1, -1}, DataType::BFloat16);
  ops::VarMeanResult vm = ops::varMean(x, {1}, /*correction=*/1.0);
  fusion_.addOutput(vm.var);
  fusion_.addOutput(vm.mean);
  const std::string script = writeScript(fusion_, "f", false);
  EXPECT_NE(script.find("    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
                        "    T5, T2 = fd.ops.var_mean(T1, dims=[1], "
                        "correction=1, keepdim=False)\n"),
            std::string::npos)
      << script;
  EXPECT_EQ(script.find("fd.ops.div"), std::string::npos) << script;
}

TEST_F(ScriptWriterTest, ConstantsOfNonLiteralDtypeAreDefined) {
  TensorView* x = input({-1});
  ir::Scalar* two = fusion_.newConstant(2.0, DataType::Float);
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Mul, x, two));
  fusion_.addOutput(ops::binaryOp(BinaryOpType::Add, x, two));
  const std::string script = writeScript(fusion_, "f", false);
  EXPECT_NE(script.find("    S1 = fd.define_scalar(2.0, dtype=DataType.Float)\n"
                        "    T1 = fd.ops.mul(T0, S1)\n"
                        "    T2 = fd.ops.add(T0, S1)\n"),
            std::string::npos)
      << script;
}

TEST_F(ScriptWriterTest, SplitAllocationDomainIsAUserError) {
  TensorView* x = input({-1, 8});
  x->split(1, fusion_.constInt(4));
  x->setAllocationAsLoop();
  fusion_.addOutput(ops::set(x));
  try {
    writeScript(fusion_);
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find("T0"), std::string::npos) << error.what();
    EXPECT_NE(error.message().find("Split/Merge"), std::string::npos)
        << error.what();
  }
}

TEST_F(ScriptWriterTest, DeviceParallelAxisIsAUserError) {
  TensorView* x = input({-1, 8});
  x->logical()[0]->parallelize(ir::ParallelType::DIDx);
  fusion_.addOutput(ops::set(x));
  try {
    writeScript(fusion_);
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find("DID"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fuserlab::frontend
