// The ops of nvFuser's op lists that real scripts use and FuserLab reads
// (issue 41): signbit, select, scatter, index_put_accumulate, embedding_fwd,
// argsort and topk, each checked on the IR it builds and on a bad argument's
// message and line:column; the written script reads back to the same IR; and
// nvFuser ops FuserLab does not have are refused by name at the call.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ir/printer.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;
using ir::ExprType;
using ir::TensorView;
using ir::Val;

class NvfuserOpsTest : public ::testing::Test {
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

  TensorView* tensor(const std::string& name) {
    for (const auto& val : fusion().vals()) {
      if (val->scriptName() == name) return val->as<TensorView>();
    }
    ADD_FAILURE() << "no value named " << name;
    return nullptr;
  }

  // Per logical axis: the constant extent, -1 if symbolic.
  static std::vector<int64_t> extents(const TensorView* tv) {
    std::vector<int64_t> out;
    for (ir::IterDomain* id : tv->logicalNoReductions()) {
      out.push_back(id->extentForIteration()->constInt().value_or(-1));
    }
    return out;
  }

  // The error a definition body raises, at body line `line`, `column` of the
  // unindented body text.
  static void expectBodyError(std::string_view body, int line, int column,
                              std::string_view message) {
    try {
      readScript(frame(body), "test.py");
      ADD_FAILURE() << "no error for:\n" << body;
    } catch (const UserError& error) {
      ASSERT_TRUE(error.location().has_value()) << error.what();
      EXPECT_EQ(error.location()->line, line + 3) << error.what();
      EXPECT_EQ(error.location()->column, column + 4) << error.what();
      EXPECT_NE(error.message().find(message), std::string::npos)
          << "message: " << error.message() << "\nexpected: " << message;
    }
  }

  // Writes the fusion read, reads it back and expects the same IR.
  void expectRoundTrip() {
    const std::string written = writeScript(fusion(), "round_trip");
    Script back = readScript(written, "round_trip.py");
    EXPECT_EQ(ir::printFusionIr(back.fusion()), ir::printFusionIr(fusion())) << "written script:\n"
                                                                             << written;
  }

  Script script_;
};

constexpr std::string_view kMatrix = "T0 = fd.define_tensor(shape=[4, 6], dtype=DataType.Float)\n";

TEST_F(NvfuserOpsTest, SignbitIsABoolUnaryOp) {
  readBody(std::string(kMatrix) +
           "T1 = fd.ops.signbit(T0)\n"
           "S2 = fd.define_scalar(-1.5, dtype=DataType.Double)\n"
           "S3 = fd.ops.signbit(S2)\n"
           "fd.add_output(T1)");
  const ir::Expr* def = tensor("T1")->definition();
  EXPECT_EQ(def->type(), ExprType::Unary);
  EXPECT_EQ(def->attrs().unaryOp, ir::UnaryOpType::Signbit);
  EXPECT_EQ(tensor("T1")->dtype(), DataType::Bool);
  EXPECT_EQ(extents(tensor("T1")), (std::vector<int64_t>{4, 6}));
  expectRoundTrip();
}

TEST_F(NvfuserOpsTest, SignbitTakesOneArgument) {
  expectBodyError(std::string(kMatrix) + "T1 = fd.ops.signbit(T0, T0)", 2, 25,
                  "fd.ops.signbit takes at most 1 argument (arg)");
}

TEST_F(NvfuserOpsTest, SelectRemovesTheAxis) {
  readBody(std::string(kMatrix) +
           "T1 = fd.ops.select(T0, 2, dim=1)\n"
           "T2 = fd.ops.select(T0, index=-1, dim=0)\n"
           "S3 = fd.define_scalar(None, dtype=DataType.Int)\n"
           "T4 = fd.ops.select(T0, S3, 1)\n"
           "fd.add_output(T1)\nfd.add_output(T2)\nfd.add_output(T4)");
  EXPECT_EQ(extents(tensor("T1")), (std::vector<int64_t>{4}));
  EXPECT_EQ(extents(tensor("T2")), (std::vector<int64_t>{6}));
  EXPECT_EQ(extents(tensor("T4")), (std::vector<int64_t>{4}));
  // A view, as torch's: a slice of one position and a squeeze.
  const ir::Expr* squeeze = tensor("T1")->definition();
  EXPECT_EQ(squeeze->type(), ExprType::Squeeze);
  EXPECT_EQ(squeeze->input(0)->definition()->type(), ExprType::Slice);
  expectRoundTrip();
}

TEST_F(NvfuserOpsTest, SelectOfAnIndexOutOfRangeOrATensorIsAnError) {
  expectBodyError(std::string(kMatrix) + "T1 = fd.ops.select(T0, 6, dim=1)", 2, 6,
                  "select: index 6 is out of range for axis 1");
  expectBodyError(std::string(kMatrix) +
                      "I1 = fd.define_tensor(shape=[2], dtype=DataType.Int)\n"
                      "T2 = fd.ops.select(T0, I1, dim=1)",
                  3, 24, "for a tensor of indices use fd.ops.index_select");
}

TEST_F(NvfuserOpsTest, ScatterKeepsTheInputShape) {
  readBody(std::string(kMatrix) +
           "I1 = fd.define_tensor(shape=[2, 6], dtype=DataType.Int)\n"
           "T2 = fd.define_tensor(shape=[2, 6], dtype=DataType.Float)\n"
           "T3 = fd.ops.scatter(T0, I1, T2, dim=0)\n"
           "T4 = fd.ops.scatter(arg1=T0, index=I1, src=2.5, dim=-2)\n"
           "fd.add_output(T3)\nfd.add_output(T4)");
  for (const char* name : {"T3", "T4"}) {
    const ir::Expr* def = tensor(name)->definition();
    EXPECT_EQ(def->type(), ExprType::Scatter) << name;
    EXPECT_EQ(def->attrs().dim, 0) << name;
    EXPECT_EQ(extents(tensor(name)), (std::vector<int64_t>{4, 6})) << name;
    EXPECT_EQ(tensor(name)->dtype(), DataType::Float) << name;
  }
  EXPECT_TRUE(tensor("T4")->definition()->input(2)->isA<ir::Scalar>());
  expectRoundTrip();
}

TEST_F(NvfuserOpsTest, ScatterOfAnotherDtypeIsAnError) {
  expectBodyError(std::string(kMatrix) +
                      "I1 = fd.define_tensor(shape=[2, 6], dtype=DataType.Int)\n"
                      "T2 = fd.define_tensor(shape=[2, 6], dtype=DataType.Half)\n"
                      "T3 = fd.ops.scatter(T0, I1, T2, 0)",
                  4, 6, "scatter: src T2 is Half but T0 is Float");
}

TEST_F(NvfuserOpsTest, IndexPutAccumulateKeepsTheAccumulatorShape) {
  readBody(
      "T0 = fd.define_tensor(shape=[10, 8], dtype=DataType.BFloat16)\n"
      "I1 = fd.define_tensor(shape=[-1], dtype=DataType.Int)\n"
      "T2 = fd.define_tensor(shape=[-1, 8], dtype=DataType.BFloat16)\n"
      "T3 = fd.ops.index_put_accumulate(T0, I1, T2)\n"
      "T4 = fd.ops.index_put_accumulate(acc=T0, index=I1, value=T2)\n"
      "fd.add_output(T3)\nfd.add_output(T4)");
  EXPECT_EQ(tensor("T3")->definition()->type(), ExprType::IndexPutAccumulate);
  EXPECT_EQ(extents(tensor("T3")), (std::vector<int64_t>{10, 8}));
  EXPECT_EQ(tensor("T3")->dtype(), DataType::BFloat16);
  expectRoundTrip();
}

TEST_F(NvfuserOpsTest, IndexPutAccumulateWithATwoDimIndexIsAnError) {
  expectBodyError(
      "T0 = fd.define_tensor(shape=[10, 8])\n"
      "I1 = fd.define_tensor(shape=[2, 3], dtype=DataType.Int)\n"
      "T2 = fd.define_tensor(shape=[2, 8])\n"
      "T3 = fd.ops.index_put_accumulate(T0, I1, T2)",
      4, 6, "('I1' in the script) has rank 2; expected a 1-D index");
}

TEST_F(NvfuserOpsTest, EmbeddingAppendsTheEmbeddingAxis) {
  readBody(
      "I0 = fd.define_tensor(shape=[2, 5], dtype=DataType.Int)\n"
      "T1 = fd.define_tensor(shape=[100, 16], dtype=DataType.BFloat16)\n"
      "T2 = fd.ops.embedding_fwd(I0, T1, None, None, 2.0, False, False)\n"
      "T3 = fd.ops.embedding_fwd(I0, T1, padding_idx=0, max_norm=1.0)\n"
      "T4 = fd.ops.embedding_fwd(input=I0, weight=T1)\n"
      "fd.add_output(T2)\nfd.add_output(T3)\nfd.add_output(T4)");
  for (const char* name : {"T2", "T3", "T4"}) {
    EXPECT_EQ(extents(tensor(name)), (std::vector<int64_t>{2, 5, 16})) << name;
    EXPECT_EQ(tensor(name)->dtype(), DataType::BFloat16) << name;
  }
  // Without max_norm: index_select of the flattened indices, reshaped.
  EXPECT_EQ(tensor("T2")->definition()->type(), ExprType::Reshape);
  EXPECT_EQ(tensor("T4")->definition()->type(), ExprType::Reshape);
  EXPECT_EQ(tensor("T3")->definition()->type(), ExprType::Embedding);
  EXPECT_EQ(tensor("T3")->definition()->attrs().flags, (std::vector<bool>{true, true}));
  expectRoundTrip();
}

TEST_F(NvfuserOpsTest, EmbeddingOfFloatIndicesIsAnError) {
  expectBodyError(
      "T0 = fd.define_tensor(shape=[5], dtype=DataType.Float)\n"
      "T1 = fd.define_tensor(shape=[100, 16])\n"
      "T2 = fd.ops.embedding_fwd(T0, T1)",
      3, 6, "embedding_fwd: the input T0 is Float; expected integer indices");
  expectBodyError(
      "I0 = fd.define_tensor(shape=[5], dtype=DataType.Int)\n"
      "T1 = fd.define_tensor(shape=[100, 16])\n"
      "T2 = fd.ops.embedding_fwd(I0, T1, padding_idx=100)",
      3, 6, "embedding_fwd: padding_idx 100 is out of range");
}

TEST_F(NvfuserOpsTest, ArgsortGivesIntIndices) {
  readBody(std::string(kMatrix) +
           "T1 = fd.ops.argsort(T0, dim=1, descending=True, stable=True)\n"
           "T2 = fd.ops.argsort(T0, 0)\n"
           "fd.add_output(T1)\nfd.add_output(T2)");
  const ir::Expr* def = tensor("T1")->definition();
  EXPECT_EQ(def->type(), ExprType::Argsort);
  EXPECT_EQ(def->attrs().dim, 1);
  EXPECT_EQ(def->attrs().flags, (std::vector<bool>{true, true}));
  EXPECT_EQ(tensor("T2")->definition()->attrs().flags, (std::vector<bool>{false, false}));
  EXPECT_EQ(tensor("T1")->dtype(), DataType::Int);
  EXPECT_EQ(extents(tensor("T1")), (std::vector<int64_t>{4, 6}));
  expectRoundTrip();
}

TEST_F(NvfuserOpsTest, ArgsortNeedsDim) {
  expectBodyError(std::string(kMatrix) + "T1 = fd.ops.argsort(T0)", 2, 6,
                  "fd.ops.argsort is missing the required argument 'dim'");
  expectBodyError(std::string(kMatrix) + "T1 = fd.ops.argsort(T0, dim=2)", 2, 6,
                  "argsort: axis 2 is out of range");
}

TEST_F(NvfuserOpsTest, TopkGivesValuesAndIndicesOfExtentK) {
  readBody(std::string(kMatrix) +
           "T1, T2 = fd.ops.topk(T0, 3)\n"
           "S3 = fd.define_scalar(None, dtype=DataType.Int)\n"
           "T4, T5 = fd.ops.topk(T0, S3, dim=0, largest=False, sorted=True)\n"
           "fd.add_output(T1)\nfd.add_output(T2)\nfd.add_output(T4)\n"
           "fd.add_output(T5)");
  const ir::Expr* def = tensor("T1")->definition();
  EXPECT_EQ(def->type(), ExprType::TopK);
  EXPECT_EQ(def, tensor("T2")->definition());
  EXPECT_EQ(def->attrs().dim, 1);  // dim=-1 by default
  EXPECT_EQ(def->attrs().flags, (std::vector<bool>{true, false}));
  EXPECT_EQ(extents(tensor("T1")), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(tensor("T1")->dtype(), DataType::Float);
  EXPECT_EQ(tensor("T2")->dtype(), DataType::Int);
  EXPECT_EQ(extents(tensor("T4")), (std::vector<int64_t>{-1, 6}));
  EXPECT_EQ(tensor("T4")->definition()->attrs().flags, (std::vector<bool>{false, true}));
  expectRoundTrip();
}

TEST_F(NvfuserOpsTest, TopkOfMoreThanTheAxisIsAnError) {
  expectBodyError(std::string(kMatrix) + "T1, T2 = fd.ops.topk(T0, 7)", 2, 10,
                  "topk: k is 7 but axis 1 of T0");
  expectBodyError(std::string(kMatrix) + "T1, T2 = fd.ops.topk(T0, 2.5)", 2, 10,
                  "topk: k must be an integer scalar, but 2.5 is Double");
}

TEST_F(NvfuserOpsTest, NvfuserOpsFuserLabLacksAreRefusedByName) {
  expectBodyError(std::string(kMatrix) + "T1 = fd.ops.threshold(T0, 0.5, 0.0)", 2, 6,
                  "fd.ops.threshold is an nvFuser op that FuserLab does not "
                  "support yet");
  expectBodyError(std::string(kMatrix) + "T1 = fd.ops.mod(T0, T0)", 2, 6,
                  "fd.ops.mod is an nvFuser op that FuserLab does not "
                  "support yet");
  expectBodyError(std::string(kMatrix) + "T1 = fd.ops.index_add(T0, 0, T0, T0)", 2, 6,
                  "unknown op fd.ops.index_add: nvFuser has no op of that name");
}

}  // namespace
}  // namespace fuserlab::frontend
