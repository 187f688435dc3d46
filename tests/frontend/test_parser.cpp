#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/frontend/parser.h"

namespace fuserlab::frontend {
namespace {

// The kind of script nvFuser prints for a failing fusion.
constexpr std::string_view kRepro = R"(import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[2], correction=0, keepdim=False)
    S6 = fd.define_scalar(16, dtype=DataType.Int)
    S16 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    V9 = fd.define_vector([S6, 128, T0.size(2)], dtype=DataType.Int)
    T10 = fd.ops.broadcast_in_dim(T4, shape=V9, broadcast_dims=[0, 1])
    S = fd.define_scalar(float("inf"))
    T11 = fd.ops.reshape(T3, new_shape=[16, 128 * 2, -1])
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(3276800, dtype=torch.bfloat16, device='cuda:0').as_strided((16, 128, 1600), (204800, 1600, 1)),
    torch.testing.make_tensor((1600,), dtype=torch.bfloat16, device='cuda:0', low=-1, high=1),
]
fd.execute(inputs)
)";

// The same kind of script as a person edits it: keyword arguments over
// several lines, trailing commas, comments, several definitions, a main block.
constexpr std::string_view kEditedRepro = R"(#!/usr/bin/env python3
# Reduced from a failing layer norm.
import torch
import torch.testing as tt, numpy
from nvfuser import (
    FusionDefinition,
    DataType,  # the dtypes
)


def nvfuser_fusion_id0(fd: FusionDefinition, eps=1e-05) -> None:
    """Forward."""
    T0 = fd.define_tensor(
        shape=[-1, 1024],      # symbolic batch
        contiguity=[True, None],
        dtype=DataType.Half,
        is_cpu=False,
    )
    (T1, T2) = fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=False,)
    [T3] = [fd.ops.rsqrt(T1)]
    S4 = fd.define_scalar(eps, dtype=DataType.Double); fd.add_output(T3)
    return


def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.permute(T0, dims=[1, 0])
    fd.add_output(T1[0])
    pass


if __name__ == "__main__":
    with FusionDefinition() as fd:
        nvfuser_fusion_id0(fd)
    inputs = [
        tt.make_tensor((8, 1024), dtype=torch.float16, device="cuda:0"),
    ]
    outputs = fd.execute(inputs)
    print(outputs[0].shape, f"{len(outputs)} outputs")
)";

class ParserTest : public ::testing::Test {
 protected:
  static Module parse(std::string_view source) { return parseScript(source, "repro.py"); }

  // Parses `x = <expression>` and prints the expression back.
  static std::string expr(std::string_view expression) {
    Module module = parse("x = " + std::string(expression) + "\n");
    EXPECT_EQ(module.body.size(), 1u);
    return toString(*module.body.at(0)->as<Assign>()->value);
  }

  static const Expr& valueOf(const Module& module, std::size_t index) {
    const Assign* assign = module.body.at(index)->as<Assign>();
    EXPECT_NE(assign, nullptr) << "statement " << index << " is no assignment";
    return *assign->value;
  }

  // The error that parsing `source` throws; fails the test if none.
  static UserError parseError(std::string_view source) {
    try {
      parse(source);
    } catch (const UserError& error) {
      return error;
    }
    ADD_FAILURE() << "no error for:\n" << source;
    return UserError("no error");
  }

  // Asserts the error's line, column and a part of its message.
  static void expectError(std::string_view source, int line, int column, std::string_view message) {
    UserError error = parseError(source);
    std::string_view shown = source.substr(0, 200);  // some are huge
    ASSERT_TRUE(error.location()) << shown;
    EXPECT_EQ(error.location()->file, "repro.py");
    EXPECT_EQ(error.location()->line, line) << shown << "\n" << error.message();
    EXPECT_EQ(error.location()->column, column) << shown << "\n" << error.message();
    EXPECT_NE(error.message().find(message), std::string::npos)
        << "message: " << error.message() << "\nwanted: " << message;
  }
};

TEST_F(ParserTest, ParsesAFullRepro) {
  Module module = parse(kRepro);
  EXPECT_EQ(module.fileName, "repro.py");
  ASSERT_EQ(module.body.size(), 6u);
  EXPECT_EQ(toString(module),
            "import torch\n"
            "from nvfuser import FusionDefinition, DataType\n"
            "def nvfuser_fusion_id0(fd: FusionDefinition) -> None:\n"
            "    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, "
            "True, True], dtype=DataType.BFloat16, is_cpu=False, "
            "stride_order=[2, 1, 0])\n"
            "    T3 = fd.ops.cast(T0, dtype=DataType.Float)\n"
            "    T4, T5 = fd.ops.var_mean(T3, dims=[2], correction=0, "
            "keepdim=False)\n"
            "    S6 = fd.define_scalar(16, dtype=DataType.Int)\n"
            "    S16 = fd.define_scalar(1e-05, dtype=DataType.Double)\n"
            "    V9 = fd.define_vector([S6, 128, T0.size(2)], "
            "dtype=DataType.Int)\n"
            "    T10 = fd.ops.broadcast_in_dim(T4, shape=V9, "
            "broadcast_dims=[0, 1])\n"
            "    S = fd.define_scalar(float('inf'))\n"
            "    T11 = fd.ops.reshape(T3, new_shape=[16, (128 * 2), -1])\n"
            "    fd.add_output(T10)\n"
            "with FusionDefinition() as fd:\n"
            "    nvfuser_fusion_id0(fd)\n"
            "inputs = [torch.randn(3276800, dtype=torch.bfloat16, "
            "device='cuda:0').as_strided((16, 128, 1600), (204800, 1600, 1)), "
            "torch.testing.make_tensor((1600,), dtype=torch.bfloat16, "
            "device='cuda:0', low=-1, high=1)]\n"
            "fd.execute(inputs)\n");

  const auto* def = module.body[2]->as<FunctionDef>();
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->name, "nvfuser_fusion_id0");
  ASSERT_EQ(def->params.size(), 1u);
  EXPECT_EQ(def->params[0].name, "fd");
  ASSERT_TRUE(def->params[0].annotation);
  EXPECT_EQ(def->params[0].annotation->as<Name>()->id, "FusionDefinition");
  ASSERT_TRUE(def->returns);
  EXPECT_EQ(def->returns->as<Constant>()->kind, ConstantKind::kNone);
  ASSERT_EQ(def->body.size(), 10u);

  // T0 = fd.define_tensor(shape=[-1, -1, -1], ...): keywords in order.
  const auto* defineTensor = def->body[0]->as<Assign>()->value->as<Call>();
  ASSERT_NE(defineTensor, nullptr);
  EXPECT_TRUE(defineTensor->args.empty());
  std::vector<std::string> keywordNames;
  for (const Keyword& keyword : defineTensor->keywords) {
    keywordNames.push_back(keyword.name);
  }
  EXPECT_EQ(keywordNames,
            (std::vector<std::string>{"shape", "contiguity", "dtype", "is_cpu", "stride_order"}));
  const auto* shape = defineTensor->keywords[0].value->as<List>();
  ASSERT_EQ(shape->elements.size(), 3u);
  const auto* minusOne = shape->elements[0]->as<UnaryOp>();
  ASSERT_NE(minusOne, nullptr);
  EXPECT_EQ(minusOne->op, UnaryOpKind::kNegate);
  EXPECT_EQ(minusOne->operand->as<Number>()->intValue, 1);
  const auto* callee = defineTensor->callee->as<Attribute>();
  EXPECT_EQ(callee->name, "define_tensor");
  EXPECT_EQ(callee->object->as<Name>()->id, "fd");
  const auto* dtype = defineTensor->keywords[2].value->as<Attribute>();
  EXPECT_EQ(dtype->name, "BFloat16");
  EXPECT_EQ(defineTensor->keywords[3].value->as<Constant>()->kind, ConstantKind::kFalse);

  // T4, T5 = ...: a tuple target.
  const auto* target = def->body[2]->as<Assign>()->target->as<Tuple>();
  ASSERT_NE(target, nullptr);
  ASSERT_EQ(target->elements.size(), 2u);
  EXPECT_EQ(target->elements[1]->as<Name>()->id, "T5");

  // 16 is an int, 1.00000e-05 a float.
  const auto* sixteen = def->body[3]->as<Assign>()->value->as<Call>()->args[0]->as<Number>();
  EXPECT_TRUE(sixteen->isInt);
  EXPECT_EQ(sixteen->intValue, 16);
  const auto* epsilon = def->body[4]->as<Assign>()->value->as<Call>()->args[0]->as<Number>();
  EXPECT_FALSE(epsilon->isInt);
  EXPECT_DOUBLE_EQ(epsilon->floatValue, 1e-05);

  // float("inf") is a call of a name with a string.
  const auto* floatCall = def->body[7]->as<Assign>()->value->as<Call>()->args[0]->as<Call>();
  EXPECT_EQ(floatCall->callee->as<Name>()->id, "float");
  EXPECT_EQ(floatCall->args[0]->as<String>()->value, "inf");

  // 128 * 2 is a binary operation.
  const auto* newShape = def->body[8]->as<Assign>()->value->as<Call>();
  const auto* product = newShape->keywords[0].value->as<List>()->elements[1]->as<BinaryOp>();
  ASSERT_NE(product, nullptr);
  EXPECT_EQ(product->op, BinaryOpKind::kMul);

  const auto* with = module.body[3]->as<With>();
  ASSERT_NE(with, nullptr);
  EXPECT_EQ(with->target, "fd");
  EXPECT_EQ(with->context->as<Call>()->callee->as<Name>()->id, "FusionDefinition");
  ASSERT_EQ(with->body.size(), 1u);
  EXPECT_TRUE(with->body[0]->is<ExprStatement>());

  const auto* inputs = valueOf(module, 4).as<List>();
  ASSERT_NE(inputs, nullptr);
  ASSERT_EQ(inputs->elements.size(), 2u);
  const auto* asStrided = inputs->elements[0]->as<Call>();
  EXPECT_EQ(asStrided->callee->as<Attribute>()->name, "as_strided");
  EXPECT_EQ(asStrided->args[0]->as<Tuple>()->elements.size(), 3u);
  const auto* makeTensor = inputs->elements[1]->as<Call>();
  EXPECT_EQ(makeTensor->args[0]->as<Tuple>()->elements.size(), 1u);
  EXPECT_EQ(makeTensor->keywords[1].value->as<String>()->value, "cuda:0");
}

TEST_F(ParserTest, ParsesAnEditedReproWithEveryStatementKind) {
  Module module = parse(kEditedRepro);
  ASSERT_EQ(module.body.size(), 6u);

  const auto* import = module.body[1]->as<Import>();
  ASSERT_NE(import, nullptr);
  ASSERT_EQ(import->names.size(), 2u);
  EXPECT_EQ(import->names[0].name, "torch.testing");
  EXPECT_EQ(import->names[0].asName, "tt");
  EXPECT_EQ(import->names[1].name, "numpy");
  EXPECT_EQ(import->names[1].asName, "");
  const auto* from = module.body[2]->as<ImportFrom>();
  ASSERT_NE(from, nullptr);
  EXPECT_EQ(from->module, "nvfuser");
  ASSERT_EQ(from->names.size(), 2u);
  EXPECT_EQ(from->names[1].name, "DataType");
  EXPECT_EQ(from->names[1].location.line, 7);

  const auto* first = module.body[3]->as<FunctionDef>();
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->params.size(), 2u);
  EXPECT_EQ(first->params[1].name, "eps");
  EXPECT_FALSE(first->params[1].annotation);
  EXPECT_DOUBLE_EQ(first->params[1].defaultValue->as<Number>()->floatValue, 1e-05);
  // docstring, T0, (T1, T2), [T3], S4, add_output (after ';'), return
  ASSERT_EQ(first->body.size(), 7u);
  EXPECT_EQ(first->body[0]->as<ExprStatement>()->value->as<String>()->value, "Forward.");
  const auto* multiLine = first->body[1]->as<Assign>()->value->as<Call>();
  ASSERT_EQ(multiLine->keywords.size(), 4u);
  EXPECT_EQ(multiLine->keywords[1].value->as<List>()->elements[1]->as<Constant>()->kind,
            ConstantKind::kNone);
  EXPECT_EQ(multiLine->keywords[3].location.line, 17);
  EXPECT_TRUE(first->body[2]->as<Assign>()->target->is<Tuple>());
  EXPECT_TRUE(first->body[3]->as<Assign>()->target->is<List>());
  EXPECT_TRUE(first->body[5]->is<ExprStatement>());
  ASSERT_TRUE(first->body[6]->is<Return>());
  EXPECT_FALSE(first->body[6]->as<Return>()->value);

  const auto* second = module.body[4]->as<FunctionDef>();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->name, "nvfuser_fusion_id1");
  EXPECT_TRUE(second->body.back()->is<Pass>());
  const auto* subscript =
      second->body[2]->as<ExprStatement>()->value->as<Call>()->args[0]->as<Subscript>();
  ASSERT_NE(subscript, nullptr);
  EXPECT_EQ(subscript->index->as<Number>()->intValue, 0);

  const auto* main = module.body[5]->as<If>();
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(toString(*main->condition), "(__name__ == '__main__')");
  ASSERT_EQ(main->body.size(), 4u);
  EXPECT_TRUE(main->body[0]->is<With>());
  EXPECT_TRUE(main->orelse.empty());
  const auto* print = main->body[3]->as<ExprStatement>()->value->as<Call>();
  const auto* format = print->args[1]->as<String>();
  EXPECT_TRUE(format->isFormat);
  EXPECT_EQ(format->value, "{len(outputs)} outputs");
}

TEST_F(ParserTest, PrintedTreeParsesToTheSameTree) {
  for (std::string_view source : {kRepro, kEditedRepro}) {
    std::string printed = toString(parse(source));
    EXPECT_EQ(toString(parse(printed)), printed);
  }
}

TEST_F(ParserTest, ImportForms) {
  Module module = parse(
      "import torch\n"
      "import torch.testing as tt\n"
      "from nvfuser import FusionDefinition, DataType as DT\n"
      "from nvfuser.pytorch_utils import *\n"
      "from a.b import (c,\n  d as e,\n)\n");
  EXPECT_EQ(toString(module),
            "import torch\n"
            "import torch.testing as tt\n"
            "from nvfuser import FusionDefinition, DataType as DT\n"
            "from nvfuser.pytorch_utils import *\n"
            "from a.b import c, d as e\n");
  EXPECT_EQ(module.body[3]->as<ImportFrom>()->names[0].name, "*");
  EXPECT_EQ(kindName(*module.body[0]), "import");
}

TEST_F(ParserTest, FunctionDefinitions) {
  Module module = parse(
      "def f(fd, x: int, y: 'T' = 2, z=None,) -> Tuple[int, int]:\n"
      "    return x, y\n"
      "def g(): pass\n"
      "def h():\n"
      "    def inner(a):\n"
      "        return (a)\n"
      "    return inner\n");
  EXPECT_EQ(toString(module),
            "def f(fd, x: int, y: 'T' = 2, z=None) -> Tuple[int, int]:\n"
            "    return (x, y)\n"
            "def g():\n"
            "    pass\n"
            "def h():\n"
            "    def inner(a):\n"
            "        return a\n"
            "    return inner\n");
  const auto* f = module.body[0]->as<FunctionDef>();
  ASSERT_EQ(f->params.size(), 4u);
  EXPECT_EQ(f->params[2].location.column, 19);
  EXPECT_TRUE(f->body[0]->as<Return>()->value->is<Tuple>());
}

TEST_F(ParserTest, WithAndIfStatements) {
  Module module = parse(
      "with FusionDefinition() as fd:\n"
      "    f(fd)\n"
      "with ctx():\n"
      "    pass\n"
      "if a:\n"
      "    x = 1\n"
      "elif b != 2:\n"
      "    x = 2\n"
      "else:\n"
      "    x = 3\n");
  const auto* anonymous = module.body[1]->as<With>();
  ASSERT_NE(anonymous, nullptr);
  EXPECT_EQ(anonymous->target, "");
  const auto* with = module.body[0]->as<With>();
  EXPECT_EQ(with->targetLocation.line, 1);
  EXPECT_EQ(with->targetLocation.column, 28);
  const auto* branch = module.body[2]->as<If>();
  ASSERT_NE(branch, nullptr);
  ASSERT_EQ(branch->orelse.size(), 1u);
  const auto* elif = branch->orelse[0]->as<If>();
  ASSERT_NE(elif, nullptr);
  EXPECT_EQ(elif->condition->as<BinaryOp>()->op, BinaryOpKind::kNotEq);
  ASSERT_EQ(elif->orelse.size(), 1u);
  EXPECT_EQ(toString(*elif->orelse[0]), "x = 3\n");
  EXPECT_EQ(module.body[2]->location.line, 5);
  EXPECT_EQ(branch->orelse[0]->location.line, 7);
}

TEST_F(ParserTest, AssignmentTargets) {
  Module module = parse(
      "a = 1\n"
      "b, c = d\n"
      "(e, f) = g\n"
      "[h, i] = j\n"
      "k, = l\n"
      "m = n, o\n");
  EXPECT_EQ(toString(module),
            "a = 1\n"
            "b, c = d\n"
            "e, f = g\n"
            "[h, i] = j\n"
            "k, = l\n"
            "m = (n, o)\n");
  EXPECT_EQ(module.body[2]->as<Assign>()->target->location.column, 1);
  EXPECT_EQ(kindName(*module.body[0]), "assignment");
}

TEST_F(ParserTest, Literals) {
  EXPECT_EQ(expr("16"), "16");
  EXPECT_EQ(expr("0x10"), "16");
  EXPECT_EQ(expr("1.00000"), "1.0");
  EXPECT_EQ(expr("1e-05"), "1e-05");
  EXPECT_EQ(expr("1e400"), "1e309");
  EXPECT_EQ(expr("'a' \"b\" '''c'''"), "'abc'");
  EXPECT_EQ(expr("('a' 'b'\n  'c')"), "'abc'");
  EXPECT_EQ(expr("r'\\d' f'{x}'"), "f'\\\\d{x}'");
  EXPECT_EQ(expr("b'\\x00\\xff'"), "b'\\x00\\xff'");
  EXPECT_EQ(expr("'tab\\there'"), "'tab\\there'");
  EXPECT_EQ(expr("True, False, None"), "(True, False, None)");

  Module module = parse("x = 2\ny = 2.0\n");
  EXPECT_TRUE(valueOf(module, 0).as<Number>()->isInt);
  EXPECT_FALSE(valueOf(module, 1).as<Number>()->isInt);
  EXPECT_EQ(valueOf(module, 1).as<Number>()->intValue, 0);
  EXPECT_EQ(valueOf(module, 0).as<Number>()->floatValue, 2.0);
}

TEST_F(ParserTest, ContainersAndPostfixes) {
  EXPECT_EQ(expr("[]"), "[]");
  EXPECT_EQ(expr("[1, [2, 3],]"), "[1, [2, 3]]");
  EXPECT_EQ(expr("()"), "()");
  EXPECT_EQ(expr("(1,)"), "(1,)");
  EXPECT_EQ(expr("((1, 2), 3)"), "((1, 2), 3)");
  EXPECT_EQ(expr("((a))"), "a");
  EXPECT_EQ(expr("a.b.c(d)(e)[0][1, 2][3,]"), "a.b.c(d)(e)[0][1, 2][3,]");
  EXPECT_EQ(expr("f(\n  1,\n  k=2,\n)"), "f(1, k=2)");
  EXPECT_EQ(expr("(1).real"), "(1).real");
  EXPECT_EQ(expr("(-a).b"), "(-a).b");
  EXPECT_EQ(expr("'-'.join(x)"), "'-'.join(x)");
}

TEST_F(ParserTest, OperatorPrecedenceAndAssociativity) {
  EXPECT_EQ(expr("1 + 2 * 3"), "(1 + (2 * 3))");
  EXPECT_EQ(expr("1 - 2 - 3"), "((1 - 2) - 3)");
  EXPECT_EQ(expr("a / b // c % d @ e"), "((((a / b) // c) % d) @ e)");
  EXPECT_EQ(expr("2 ** 3 ** 2"), "(2 ** (3 ** 2))");
  EXPECT_EQ(expr("-x ** 2"), "-(x ** 2)");
  EXPECT_EQ(expr("(-x) ** 2"), "((-x) ** 2)");
  EXPECT_EQ(expr("2 ** -1"), "(2 ** -1)");
  EXPECT_EQ(expr("-+~a"), "-+~a");
  EXPECT_EQ(expr("a + b == c * d"), "((a + b) == (c * d))");
  EXPECT_EQ(expr("a < b or not c and d >= e"), "((a < b) or ((not c) and (d >= e)))");
  EXPECT_EQ(expr("not a == b"), "(not (a == b))");
  EXPECT_EQ(expr("a <= -1"), "(a <= -1)");
  EXPECT_EQ(expr("a > b"), "(a > b)");
}

TEST_F(ParserTest, NodesCarryTheirLocation) {
  Module module = parse(
      "import torch\n"
      "def f(fd):\n"
      "    T1 = fd.ops.add(T0,\n"
      "                    alpha=2 * S1)\n");
  const auto* def = module.body[1]->as<FunctionDef>();
  const Stmt& assign = *def->body[0];
  EXPECT_EQ(assign.location.file, "repro.py");
  EXPECT_EQ(assign.location.line, 3);
  EXPECT_EQ(assign.location.column, 5);
  EXPECT_EQ(assign.location.lineText, "    T1 = fd.ops.add(T0,");

  const Expr& value = *assign.as<Assign>()->value;
  EXPECT_EQ(value.location.column, 10);  // a call starts at its callee
  const auto* call = value.as<Call>();
  EXPECT_EQ(call->openParen.column, 20);
  EXPECT_EQ(call->callee->as<Attribute>()->nameLocation.column, 17);
  EXPECT_EQ(call->args[0]->location.column, 21);
  const Keyword& alpha = call->keywords[0];
  EXPECT_EQ(alpha.location.line, 4);
  EXPECT_EQ(alpha.location.column, 21);
  EXPECT_EQ(alpha.location.lineText, "                    alpha=2 * S1)");
  const auto* product = alpha.value->as<BinaryOp>();
  EXPECT_EQ(alpha.value->location.column, 27);
  EXPECT_EQ(product->opLocation.column, 29);
  EXPECT_EQ(product->rhs->location.column, 31);
  EXPECT_EQ(product->rhs->location.file, "repro.py");
}

TEST_F(ParserTest, LongLinesKeepBoundedLineText) {
  std::string longLine = "x = [" + std::string(600, ' ') + "a, b]\n";
  Module module = parse(longLine);
  const auto* list = valueOf(module, 0).as<List>();
  EXPECT_EQ(module.body[0]->location.lineText.size(), kMaxNodeLineTextBytes);
  EXPECT_EQ(list->elements[0]->location.column, 606);
  EXPECT_EQ(list->elements[0]->location.lineText, "");
  // Errors still show the whole line.
  UserError error = parseError("x = [" + std::string(600, ' ') + "a b]\n");
  EXPECT_EQ(error.location()->column, 608);
  EXPECT_EQ(error.location()->lineText.size(), 609u);
}

TEST_F(ParserTest, UnclosedParenthesisIsReportedWhereTheStatementBreaks) {
  // At the end of file: point after the last token, name the opening.
  expectError(
      "import torch\n"
      "def f(fd):\n"
      "    T1 = fd.ops.add(T0, S1\n",
      3, 27,
      "expected ',' or ')' to close the call opened at 3:20, found end of "
      "file");
  // Followed by more statements: the next line's first token is the culprit.
  expectError(
      "T1 = fd.ops.add(T0, S1\n"
      "T2 = fd.ops.mul(T1, T1)\n",
      2, 1,
      "expected ',' or ')' to close the call opened at 1:16, found name "
      "'T2'");
  expectError("x = [1, 2\ny = 3\n", 2, 1, "expected ',' or ']' to close the list opened at 1:5");
  expectError("x = (1, 2\n", 1, 10,
              "expected ',' or ')' to close the tuple opened at 1:5, found "
              "end of file");
  expectError("x = f(\n", 1, 7, "expected an argument or ')' to close the call opened at 1:6");
  // A loop keyword on the next line means a missing ')', not a generator.
  expectError("x = f(a\nfor b in c:\n  pass\n", 2, 11,
              "expected ',' or ')' to close the call opened at 1:6, found "
              "':'");
}

TEST_F(ParserTest, BadIndentationIsReportedAtTheLine) {
  expectError("import torch\n  x = 1\n", 2, 3, "unexpected indent");
  expectError("def f(fd):\n    a = 1\n      b = 2\n", 3, 7, "unexpected indent");
  expectError("def f(fd):\n    a = 1\n  b = 2\n", 3, 3,
              "unindent does not match any outer indentation level");
  expectError("def f(fd):\nx = 1\n", 2, 1,
              "expected an indented block after 'def' at 1:1, found name "
              "'x'");
  expectError("if x:\n", 1, 6,
              "expected an indented block after 'if' at 1:1, found end of "
              "file");
  expectError("if x:\n    pass\nelse:\ny = 1\n", 4, 1,
              "expected an indented block after 'else' at 3:1");
}

TEST_F(ParserTest, UnexpectedTokensSayWhatWasExpected) {
  expectError("x = 1 2\n", 1, 7, "expected end of line after the statement, found number 2");
  expectError("x = \n", 1, 4, "expected an expression, found end of line");
  expectError("x = )\n", 1, 5, "unmatched ')'");
  expectError("def (fd): pass\n", 1, 5, "expected a function name after 'def', found '('");
  expectError("def f(fd) pass\n", 1, 11,
              "expected ':' to end the 'def' line, found keyword 'pass'");
  expectError("def f(fd, 1): pass\n", 1, 11,
              "expected a parameter name or ')' to close the parameter list "
              "opened at 1:6, found number 1");
  expectError("with A() as 1:\n  pass\n", 1, 13, "expected a name after 'as', found number 1");
  expectError("from nvfuser DataType\n", 1, 14,
              "expected 'import' after 'from nvfuser', found name "
              "'DataType'");
  expectError("import\n", 1, 7, "expected a module name after 'import'");
  expectError("x = a.\n", 1, 7, "expected an attribute name after '.'");
  expectError("x = a[]\n", 1, 7, "expected an index after '['");
  expectError("x = f(a=1, b)\n", 1, 12, "positional argument follows keyword argument 'a'");
  expectError("x = f(a=1, a=2)\n", 1, 12,
              "keyword argument 'a' repeated in the call opened at 1:6");
  expectError("def f(a, a): pass\n", 1, 10, "duplicate parameter 'a'");
}

// Issue 43, the second hostile corpus: every keyword argument was checked
// against the others by name, so 100,000 of them in one call took 20 s to
// refuse (and as many parameters in a def as long).
TEST_F(ParserTest, CallsAndDefinitionsHaveAtMostAThousandNamedArguments) {
  std::string keywords;
  for (int i = 0; i < 1001; ++i) keywords += "k" + std::to_string(i) + "=1, ";
  const int column = static_cast<int>(std::string("x = f(").size() + keywords.size() -
                                      std::string("k1000=1, ").size() + 1);
  expectError("x = f(" + keywords + ")\n", 1, column,
              "the call opened at 1:6 has more than 1000 keyword arguments");
  expectError("def g(" + keywords + "): pass\n", 1, column,
              "the definition of 'g' has more than 1000 parameters");
  std::string thousand;
  for (int i = 0; i < 1000; ++i) thousand += "k" + std::to_string(i) + "=1, ";
  parse("x = f(" + thousand + ")\ndef g(" + thousand + "): pass\n");
  expectError("f(x) = 1\n", 1, 1, "cannot assign to a call");
  expectError("a, f(b) = 1\n", 1, 4, "cannot assign to a call");
  expectError("() = x\n", 1, 1, "cannot assign to an empty tuple");
  expectError("else:\n  pass\n", 1, 1, "unexpected 'else'");
  expectError("x = b'a' 'b'\n", 1, 10, "cannot join a bytes literal and a str literal");
}

TEST_F(ParserTest, UnterminatedStringIsReportedAtItsStart) {
  expectError("def f(fd):\n    S = fd.define_scalar('abc)\n", 2, 26, "unterminated string literal");
  expectError("x = 1\ny = \"\"\"doc\n", 2, 5, "unterminated triple-quoted string literal");
}

// The Python that nvFuser's benchmarks and tests wrap around their
// definitions parses, and prints back to source that parses to the same
// tree (the printer's output is a fixed point).
TEST_F(ParserTest, ProgramConstructsParseAndPrintBack) {
  EXPECT_EQ(expr("a if c else b"), "(a if c else b)");
  EXPECT_EQ(expr("x[1:]"), "x[1:]");
  EXPECT_EQ(expr("x[:, ::2, 0]"), "x[:, ::2, 0]");
  EXPECT_EQ(expr("[i * 2 for i in range(n) if i]"), "[(i * 2) for i in range(n) if i]");
  EXPECT_EQ(expr("{k: v for k, v in d.items()}"), "{k: v for k, v in d.items()}");
  EXPECT_EQ(expr("sum(x for x in xs)"), "sum((x for x in xs))");
  EXPECT_EQ(expr("f(*shape, **opts)"), "f(*shape, **opts)");
  EXPECT_EQ(expr("[*a, b]"), "[*a, b]");
  EXPECT_EQ(expr("{'a': 1, 2: b}"), "{'a': 1, 2: b}");
  EXPECT_EQ(expr("lambda t, k=1: t + k"), "(lambda t, k=1: (t + k))");
  EXPECT_EQ(expr("a not in b"), "(a not in b)");
  EXPECT_EQ(expr("[n := 3, n]"), "[(n := 3), n]");
  EXPECT_EQ(expr("a is not None"), "(a is not None)");
  EXPECT_EQ(expr("a | b & c ^ d << 1"), "(a | ((b & c) ^ (d << 1)))");
  const std::string program =
      "@pytest.mark.parametrize('n', [1, 2])\n"
      "def f(fd, *args, scale=1.0, **kwargs):\n"
      "    out, *_ = g(*args)\n"
      "    shape[dim] = 1\n"
      "    x += 1\n"
      "    a = b = c\n"
      "    y: int = 2\n"
      "    assert x > 0, 'positive'\n"
      "    while x:\n"
      "        x -= 1\n"
      "        if x == 3:\n"
      "            break\n"
      "        continue\n"
      "    for i, (s, t) in enumerate(zip(a, b)):\n"
      "        pass\n"
      "    del xs[0], y\n"
      "    try:\n"
      "        pass\n"
      "    except (ValueError, KeyError) as e:\n"
      "        raise\n"
      "    except:\n"
      "        pass\n"
      "    else:\n"
      "        pass\n"
      "    finally:\n"
      "        pass\n"
      "    raise ValueError('no')\n"
      "def k(a, *, b, c=2):\n"
      "    return a\n";
  Module module = parse(program);
  const std::string printed = toString(module);
  EXPECT_EQ(toString(parse(printed)), printed);
  EXPECT_NE(printed.find("@pytest.mark.parametrize('n', [1, 2])\ndef f(fd, "
                         "*args, scale=1.0, **kwargs):"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("out, *_ = g(*args)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("def k(a, *, b, c=2):"), std::string::npos) << printed;
  EXPECT_NE(printed.find("x -= 1"), std::string::npos) << printed;
  EXPECT_NE(printed.find("a = b = c"), std::string::npos) << printed;
  // Several context managers nest, outermost first.
  const std::string with = toString(parse("with a() as x, b() as y:\n    pass\n"));
  EXPECT_EQ(with, "with a() as x:\n    with b() as y:\n        pass\n");
}

TEST_F(ParserTest, UnsupportedPythonIsNamed) {
  struct Case {
    const char* source;
    int line;
    int column;
    const char* message;
  };
  const Case cases[] = {
      {"try:\n  pass\nx = 1\n", 3, 1, "expected 'except' or 'finally' after the 'try' block"},
      {"x = a < b < c\n", 1, 11, "chained comparisons"},
      {"x = {**a}\n", 1, 6, "'**' inside dict displays"},
      {"for i in x:\n  pass\nelse:\n  pass\n", 3, 1, "'else' blocks of loops"},
      {"x = ...\n", 1, 5, "Ellipsis literals"},
      {"del f(x)\n", 1, 5, "'del' takes names and subscripts"},
      {"global x\n", 1, 1, "'global' statements"},
      {"async def f(): pass\n", 1, 1, "'async' functions"},
      {"def f():\n  yield 1\n", 2, 3, "'yield' expressions"},
      {"x = await y\n", 1, 5, "'await' expressions"},
      {"if (f() := 1):\n  pass\n", 1, 9, "the target of ':=' must be a name"},
      {"from . import x\n", 1, 6, "relative imports"},
      {"x @= y\n", 1, 3, "augmented assignments with '@='"},
      {"f(x) += 1\n", 1, 6, "must be a name, an attribute or a subscript"},
      {"x = *a\n", 1, 5, "only allowed in a list, a tuple, a call"},
      {"def f(**k, a): pass\n", 1, 12, "no parameter may follow '**k'"},
      {"x = 3j\n", 1, 5, "complex number literals"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    expectError(c.source, c.line, c.column, c.message);
  }
}

TEST_F(ParserTest, NestingIsBoundedWithAClearError) {
  auto repeat = [](std::string_view text, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += text;
    return out;
  };
  // Within the limit is fine.
  EXPECT_NO_THROW(parse("x = " + repeat("(", 150) + "a" + repeat(")", 150)));
  EXPECT_NO_THROW(parse("x = " + repeat("a + ", 150) + "a"));

  std::string deepParens = "x = " + repeat("(", 100000) + "a" + repeat(")", 100000) + "\n";
  expectError(deepParens, 1, 205, "nesting deeper than 200 levels");
  expectError("x = " + repeat("-", 100000) + "a\n", 1, 204, "nesting deeper than 200 levels");
  expectError("x = " + repeat("not ", 100000) + "a\n", 1, 801, "nesting deeper than 200 levels");
  expectError("x = " + repeat("a ** ", 100000) + "a\n", 1, 1002, "nesting deeper than 200 levels");
  // Chains built by loops are bounded by the height of the tree.
  expectError("x = " + repeat("a + ", 100000) + "a\n", 1, 5, "expression nested too deeply");
  expectError("x = a" + repeat(".b", 100000) + "\n", 1, 5, "expression nested too deeply");
  expectError("x = f" + repeat("()", 100000) + "\n", 1, 5, "expression nested too deeply");
  std::string deepBlocks;
  for (int i = 0; i < 1000; ++i) {
    deepBlocks += std::string(i, ' ') + "if x:\n";
  }
  deepBlocks += std::string(1000, ' ') + "pass\n";
  expectError(deepBlocks, 201, 204, "nesting deeper than 200 levels");
  std::string elifs = "if x:\n  pass\n" + repeat("elif x:\n  pass\n", 1000);
  expectError(elifs, 401, 6, "nesting deeper than 200 levels");
}

TEST_F(ParserTest, ArbitraryInputIsAcceptedOrAUserError) {
  // A cheap in-test fuzzer over fragments of the dialect, so that a crash or
  // a stray exception type shows up in every test run, not only under
  // libFuzzer.
  const std::vector<std::string> pieces = {
      "fd",   ".",      "ops",    "(",      ")",    "[",    "]",    ",",      "=",    ":",     "\n",
      "    ", "\t",     "def",    "with",   "as",   "if",   "else", "import", "from", "-",     "**",
      "1",    "1.5e-3", "'s'",    "\"\"\"", "#c\n", "\\\n", "True", "not",    "==",   "x",     ";",
      "{",    "0x",     "lambda", "for",    "@",    "*",    "'",    "\xff",   "\r",   "return"};
  std::mt19937 random(12345);
  for (int round = 0; round < 3000; ++round) {
    std::string source;
    int length = static_cast<int>(random() % 40);
    for (int i = 0; i < length; ++i) source += pieces[random() % pieces.size()];
    try {
      std::string printed = toString(parse(source));
      EXPECT_EQ(toString(parse(printed)), printed) << source;
    } catch (const UserError& error) {
      EXPECT_TRUE(error.location()) << source << "\n" << error.what();
    }
  }
}

}  // namespace
}  // namespace fuserlab::frontend
