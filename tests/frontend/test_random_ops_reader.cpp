// Reading the random ops (uniform, normal, rand_like, randn_like) and
// sdpfa_bwd as both nvFuser frontends print them: the IR each builds (shape,
// dtype, distribution, seed and offset), the errors for misuse at the call,
// and the writer's script reading back to the same fusion.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ir/random_op.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;
using ir::ExprType;
using ir::RandomOpType;
using ir::TensorView;

class RandomOpsReaderTest : public ::testing::Test {
 protected:
  static std::string frame(std::string_view body, std::string_view module = "nvfuser") {
    std::ostringstream out;
    out << "from " << module << " import FusionDefinition, DataType\n\n"
        << "def fusion_func(fd : FusionDefinition) -> None :\n";
    std::istringstream lines{std::string(body)};
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
    out << "\nwith FusionDefinition() as fd:\n    fusion_func(fd)\n";
    return out.str();
  }

  void readBody(std::string_view body, std::string_view module = "nvfuser") {
    script_ = readScript(frame(body, module), "test.py");
  }

  TensorView* tensor(const std::string& name) {
    for (const auto& val : script_.fusion().vals()) {
      if (val->scriptName() == name) return val->as<TensorView>();
    }
    ADD_FAILURE() << "no value named " << name;
    return nullptr;
  }

  static std::vector<int64_t> extents(const TensorView* tv) {
    std::vector<int64_t> out;
    for (ir::IterDomain* id : tv->logicalNoReductions()) {
      out.push_back(id->extentForIteration()->constInt().value_or(-1));
    }
    return out;
  }

  // The error a body raises: at body line `line` (1-based), with `message`.
  static void expectBodyError(std::string_view body, int line, std::string_view message) {
    try {
      readScript(frame(body), "test.py");
      ADD_FAILURE() << "no error for:\n" << body;
    } catch (const UserError& error) {
      ASSERT_TRUE(error.location().has_value()) << error.what();
      EXPECT_EQ(error.location()->line, line + 3) << error.what();
      EXPECT_NE(error.message().find(message), std::string::npos)
          << "message: " << error.message() << "\nexpected: " << message;
    }
  }

  Script script_;
};

TEST_F(RandomOpsReaderTest, UniformWithScalarSeedAndOffset) {
  readBody(
      "S0 = fd.define_scalar(DataType.Int)\n"
      "S1 = fd.define_scalar(DataType.Int)\n"
      "S2 = fd.define_scalar(-1.0, dtype=DataType.Double)\n"
      "S3 = fd.define_scalar(1, dtype=DataType.Int)\n"
      "T4 = fd.ops.uniform(S2, 2.0, shape=[S3, 8, 5], rng_seed=S0, rng_offset=S1, "
      "dtype=DataType.BFloat16)\n"
      "fd.add_output(T4)");
  const TensorView* out = tensor("T4");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{1, 8, 5}));
  EXPECT_TRUE(out->logicalNoReductions()[0]->isBroadcast());
  const ir::Expr* expr = out->definition();
  ASSERT_EQ(expr->type(), ExprType::Random);
  EXPECT_EQ(expr->attrs().randomOp, RandomOpType::Uniform);
  EXPECT_EQ(expr->opName(), "uniform");
  EXPECT_EQ(ir::randomSeed(*expr), script_.fusion().inputs()[0]);
  EXPECT_EQ(ir::randomOffset(*expr), script_.fusion().inputs()[1]);
  EXPECT_EQ(ir::randomParameterB(*expr)->constDouble(), 2.0);
  EXPECT_FALSE(ir::isStandardRandom(*expr));
}

TEST_F(RandomOpsReaderTest, NormalDefaultsToFloatAndTakesATupleShape) {
  readBody(
      "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True])\n"
      "T1 = fd.ops.normal(0.0, 1.0, T0.shape())\n"
      "T2 = fd.ops.normal(0.5, 2.0, (4, 6), dtype=DataType.Double)\n"
      "fd.add_output(T1)\n"
      "fd.add_output(T2)");
  const ir::Expr* standard = tensor("T1")->definition();
  EXPECT_EQ(tensor("T1")->dtype(), DataType::Float);
  EXPECT_EQ(standard->attrs().randomOp, RandomOpType::Normal);
  EXPECT_TRUE(ir::isStandardRandom(*standard));
  // T1's extents are T0's symbolic ones.
  EXPECT_EQ(tensor("T1")->logicalNoReductions()[1]->extent(),
            tensor("T0")->logicalNoReductions()[1]->extent());
  EXPECT_EQ(tensor("T2")->dtype(), DataType::Double);
  EXPECT_EQ(extents(tensor("T2")), (std::vector<int64_t>{4, 6}));
  // Without rng_seed/rng_offset: seed 0 and the op's position as offset.
  EXPECT_EQ(ir::randomSeed(*standard)->constInt(), 0);
  EXPECT_EQ(ir::randomOffset(*standard)->constInt(), 0);
  EXPECT_EQ(ir::randomOffset(*tensor("T2")->definition())->constInt(), 1);
}

TEST_F(RandomOpsReaderTest, RandLikeAndRandnLikeInBothFrontends) {
  for (const char* module : {"nvfuser", "nvfuser_direct"}) {
    SCOPED_TRACE(module);
    readBody(
        "T0 = fd.define_tensor(shape=[-1, 1, 7], contiguity=[True, None, True], "
        "dtype=DataType.Half)\n"
        "T1 = fd.ops.rand_like(T0)\n"
        "T2 = fd.ops.randn_like(T0)\n"
        "fd.add_output(T1)\n"
        "fd.add_output(T2)",
        module);
    for (const char* name : {"T1", "T2"}) {
      const TensorView* out = tensor(name);
      EXPECT_EQ(out->dtype(), DataType::Half);
      EXPECT_EQ(extents(out), (std::vector<int64_t>{-1, 1, 7}));
      EXPECT_TRUE(out->logicalNoReductions()[1]->isBroadcast());
      EXPECT_TRUE(ir::isStandardRandom(*out->definition()));
    }
    EXPECT_EQ(tensor("T1")->definition()->attrs().randomOp, RandomOpType::Uniform);
    EXPECT_EQ(tensor("T2")->definition()->attrs().randomOp, RandomOpType::Normal);
  }
  // The old frontend's keyword-only seed and offset.
  readBody(
      "T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "S1 = fd.define_scalar(DataType.Int)\n"
      "T2 = fd.ops.rand_like(T0, rng_seed=S1, rng_offset=5)\n"
      "fd.add_output(T2)");
  const ir::Expr* expr = tensor("T2")->definition();
  EXPECT_EQ(ir::randomSeed(*expr), script_.fusion().inputs()[1]);
  EXPECT_EQ(ir::randomOffset(*expr)->constInt(), 5);
}

TEST_F(RandomOpsReaderTest, MisuseIsAnErrorAtTheCall) {
  expectBodyError(
      "S0 = fd.define_scalar(DataType.Int)\n"
      "T1 = fd.ops.uniform(0.0, 1.0, shape=[4], rng_seed=S0)\n",
      2, "rng_seed and rng_offset must be given together");
  expectBodyError("T0 = fd.ops.normal(0.0, 1.0, shape=[4], dtype=DataType.Int)\n", 1,
                  "random distributions only create floating-point tensors");
  expectBodyError(
      "T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "T1 = fd.ops.rand_like(T0)\n",
      2, "random distributions only create floating-point tensors");
  expectBodyError("T0 = fd.ops.uniform(0.0, 1.0, shape=[4], rng_seed=1.5, rng_offset=0)\n", 1,
                  "rng_seed");
  expectBodyError("T0 = fd.ops.uniform(0.0, True, shape=[4])\n", 1, "expected a number");
  expectBodyError(
      "T0 = fd.define_tensor(shape=[-1], contiguity=[True])\n"
      "T1 = fd.ops.bernoulli(T0)\n",
      2, "bernoulli is not supported by FuserLab yet");
}

TEST_F(RandomOpsReaderTest, SdpfaBwdAsThunderWritesIt) {
  readBody(
      "T0 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "T1 = fd.define_tensor(shape=[2, 4, 32, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "T2 = fd.define_tensor(shape=[2, 4, 32, 6], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "T3 = fd.define_tensor(shape=[2, 4, 16, 6], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "T4 = fd.define_tensor(shape=[2, 4, 16, 6], contiguity=[True, True, True, True], "
      "dtype=DataType.BFloat16)\n"
      "T5 = fd.define_tensor(shape=[2, 4, 16], contiguity=[True, True, True], "
      "dtype=DataType.Float)\n"
      "T6 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int, is_cpu=True)\n"
      "T7 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int, is_cpu=True)\n"
      "S8 = fd.define_scalar(0.0, dtype=DataType.Double)\n"
      "S9 = fd.define_scalar(True, dtype=DataType.Bool)\n"
      "S10 = fd.define_scalar(0.125, dtype=DataType.Double)\n"
      "T11, T12, T13 = fd.ops.sdpfa_bwd(T4, T0, T1, T2, T3, T5, S8, S9, T6, T7, S10)\n"
      "T14, T15, T16 = fd.ops.sdpfa_bwd(grad_output=T4, query=T0, key=T1, value=T2, "
      "output=T3, logsumexp=T5, dropout_p=None, is_causal=None, philox_seed=None, "
      "philox_offset=None, scale=None)\n"
      "fd.add_output(T11)\nfd.add_output(T12)\nfd.add_output(T13)\nfd.add_output(T14)");
  EXPECT_EQ(extents(tensor("T11")), (std::vector<int64_t>{2, 4, 16, 8}));
  EXPECT_EQ(extents(tensor("T12")), (std::vector<int64_t>{2, 4, 32, 8}));
  EXPECT_EQ(extents(tensor("T13")), (std::vector<int64_t>{2, 4, 32, 6}));
  EXPECT_EQ(tensor("T13")->dtype(), DataType::BFloat16);
  const ir::Expr* expr = tensor("T11")->definition();
  EXPECT_EQ(expr->type(), ExprType::SdpaBwd);
  EXPECT_EQ(expr->opName(), "sdpfa_bwd");
  EXPECT_EQ(expr->inputs().size(), 11u);
  EXPECT_EQ(tensor("T14")->definition()->inputs().size(), 11u);
}

TEST_F(RandomOpsReaderTest, SdpfaBwdShapeMismatchNamesTheAxis) {
  expectBodyError(
      "T0 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.Half)\n"
      "T1 = fd.define_tensor(shape=[2, 4, 16], contiguity=[True, True, True], "
      "dtype=DataType.Float)\n"
      "T2 = fd.define_tensor(shape=[2, 4, 16, 4], contiguity=[True, True, True, True], "
      "dtype=DataType.Half)\n"
      "T3, T4, T5 = fd.ops.sdpfa_bwd(T0, T0, T0, T0, T2, T1, 0.0, False, None, None, None)\n",
      4, "the value head size (Ev)");
}

TEST_F(RandomOpsReaderTest, WrittenScriptReadsBackToTheSameFusion) {
  readBody(
      "T0 = fd.define_tensor(shape=[2, 4, 16, 8], contiguity=[True, True, True, True], "
      "dtype=DataType.Half)\n"
      "T1 = fd.define_tensor(shape=[2, 4, 16], contiguity=[True, True, True], "
      "dtype=DataType.Float)\n"
      "S2 = fd.define_scalar(DataType.Int)\n"
      "T3 = fd.ops.rand_like(T0, rng_seed=S2, rng_offset=9)\n"
      "T4 = fd.ops.normal(1.0, 3.0, shape=[5, 1], dtype=DataType.Float)\n"
      "T5, T6, T7 = fd.ops.sdpfa_bwd(T0, T0, T0, T0, T0, T1, 0.0, True, None, None, 0.5)\n"
      "fd.add_output(T3)\nfd.add_output(T4)\nfd.add_output(T5)\nfd.add_output(T6)");
  const std::string written = writeScript(script_.fusion());
  const Script reread = readScript(written, "written.py");
  EXPECT_EQ(reread.fusion().toString(), script_.fusion().toString()) << written;
}

}  // namespace
}  // namespace fuserlab::frontend
