// The Python around real definitions, read without Python: each construct
// nvFuser's benchmarks and tests use gives the fusion Python would build
// (checked on the fusion's printed IR), and each mistake is a UserError at
// its line and column.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/frontend/script_value.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ir/printer.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;

constexpr std::string_view kDirectHeader =
    "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n";

Script read(const std::string& source) { return readScript(source, "t.py"); }

std::string ir(const Script& script) { return ir::printFusionIr(script.fusion()); }

size_t count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

void expectError(const std::string& source, int line, int column, std::string_view message) {
  try {
    read(source);
    ADD_FAILURE() << "no error for:\n" << source;
  } catch (const UserError& error) {
    ASSERT_TRUE(error.location()) << error.what();
    EXPECT_EQ(error.location()->line, line) << error.what();
    EXPECT_EQ(error.location()->column, column) << error.what();
    EXPECT_NE(error.message().find(message), std::string::npos)
        << error.what() << "\nwanted: " << message;
  }
}

// A benchmark-style builder called with its dtype: the branch taken
// depends on the argument, as in Python.
TEST(InterpreterTest, BuilderParametersChooseTheBranch) {
  const std::string builder =
      std::string(kDirectHeader) +
      "PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]\n"
      "def norm(fd: FusionDefinition, dtype: DataType, eps: float = 1e-5):\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True],\n"
      "                          dtype=dtype, is_cpu=False)\n"
      "    if dtype in PROMOTE_DTYPES:\n"
      "        T0 = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    elif dtype is DataType.Double:\n"
      "        T0 = fd.ops.neg(T0)\n"
      "    else:\n"
      "        pass\n"
      "    T1 = fd.ops.sum(T0, dims=[1], keepdim=True)\n"
      "    T2 = fd.ops.add(T1, fd.define_scalar(eps, dtype=DataType.Double))\n"
      "    if dtype in PROMOTE_DTYPES:\n"
      "        T2 = fd.ops.cast(T2, dtype=dtype)\n"
      "    fd.add_output(T2)\n";
  Script bf16 = read(builder +
                     "with FusionDefinition() as fd:\n"
                     "    norm(fd, DataType.BFloat16)\n");
  EXPECT_EQ(bf16.definitions.at(bf16.executed).functionName, "norm");
  EXPECT_EQ(count(ir(bf16), "= cast("), 2u) << ir(bf16);
  EXPECT_EQ(bf16.fusion().outputs().at(0).val->dtype(), DataType::BFloat16);
  Script f32 = read(builder +
                    "with FusionDefinition() as fd:\n"
                    "    norm(fd, dtype=DataType.Float, eps=0.5)\n");
  EXPECT_EQ(count(ir(f32), "= cast("), 0u) << ir(f32);
  EXPECT_NE(ir(f32), ir(bf16));
  Script f64 = read(builder +
                    "with FusionDefinition() as fd:\n"
                    "    norm(fd, DataType.Double)\n");
  EXPECT_EQ(count(ir(f64), "= neg("), 1u) << ir(f64);
}

TEST(InterpreterTest, LoopsComprehensionsAndHelpers) {
  Script script =
      read(std::string(kDirectHeader) +
           "def scale(fd, t, k):\n"
           "    return fd.ops.mul(t, k)\n"
           "def fusion_func(fd: FusionDefinition):\n"
           "    ts = [fd.define_tensor(shape=[-1], contiguity=[True]) for _ in range(3)]\n"
           "    acc = ts[0]\n"
           "    for i, t in enumerate(ts[1:], start=1):\n"
           "        acc = fd.ops.add(acc, scale(fd, t, float(i)))\n"
           "    n = 0\n"
           "    while n < 2:\n"
           "        acc = fd.ops.neg(acc)\n"
           "        n += 1\n"
           "    for k in range(10):\n"
           "        if k == 1:\n"
           "            continue\n"
           "        if k > 2:\n"
           "            break\n"
           "        acc = fd.ops.exp(acc)\n"
           "    fd.add_output(acc)\n"
           "with FusionDefinition() as fd:\n"
           "    fusion_func(fd)\n");
  const std::string text = ir(script);
  EXPECT_EQ(script.fusion().inputs().size(), 3u);
  EXPECT_EQ(count(text, "= mul("), 2u) << text;
  EXPECT_EQ(count(text, "= add("), 2u) << text;
  EXPECT_EQ(count(text, "= neg("), 2u) << text;
  EXPECT_EQ(count(text, "= exp("), 2u) << text;  // k = 0 and k = 2
}

TEST(InterpreterTest, ListArithmeticSlicesAndSubscriptAssignment) {
  Script script = read(
      std::string(kDirectHeader) +
      "def f(fd: FusionDefinition, rank=3, dim=1):\n"
      "    shape = [-1] * rank\n"
      "    T0 = fd.define_tensor(shape=shape, contiguity=[True] * rank)\n"
      "    bshape = shape[:]\n"
      "    bshape[dim] = 1\n"
      "    assert bshape == [-1, 1, -1], 'shape'\n"
      "    T1 = fd.ops.sum(T0, dims=[dim], keepdim=True)\n"
      "    sizes = [T0.size(i) for i in range(rank)]\n"
      "    T2 = fd.ops.broadcast_in_dim(T1, shape=sizes[:dim] + [sizes[dim]] + sizes[dim + 1:],\n"
      "                                 broadcast_dims=list(range(rank)))\n"
      "    out, *rest = [fd.ops.sub(T0, T2), 1, 2]\n"
      "    assert len(rest) == 2 and rest[-1] == 2\n"
      "    tmp = {'a': 1, 'b': 2}\n"
      "    del tmp['a'], rest[0]\n"
      "    assert list(tmp) == ['b'] and rest == [2]\n"
      "    fd.add_output(out)\n");
  EXPECT_EQ(script.definitions.at(0).functionName, "f");
  EXPECT_EQ(script.fusion().outputs().size(), 1u);
  EXPECT_NE(ir(script).find("= sub("), std::string::npos);
}

TEST(InterpreterTest, DictsConditionalExpressionsAndLambdas) {
  Script script =
      read(std::string(kDirectHeader) +
           "OPS = {'relu': lambda fd, t: fd.ops.relu(t), 'neg': lambda fd, t: fd.ops.neg(t)}\n"
           "def f(fd: FusionDefinition, names=('neg', 'relu', 'neg')):\n"
           "    t = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half)\n"
           "    t = fd.ops.cast(t, DataType.Float) if t.dtype() != DataType.Float else t\n"
           "    for name in names:\n"
           "        t = OPS[name](fd, t)\n"
           "    table = {n: i for i, n in enumerate(names)}\n"
           "    fd.add_output(t if table['relu'] == 1 else None)\n");
  const std::string text = ir(script);
  EXPECT_EQ(count(text, "= neg("), 2u) << text;
  EXPECT_EQ(count(text, "= relu("), 1u) << text;
  EXPECT_EQ(count(text, "= cast("), 1u) << text;
}

TEST(InterpreterTest, ClosuresSeeTheirEnclosingFunction) {
  Script script = read(std::string(kDirectHeader) +
                       "def make(scale):\n"
                       "    def fusion_func(fd: FusionDefinition):\n"
                       "        t = fd.define_tensor(shape=[-1], contiguity=[True])\n"
                       "        fd.add_output(fd.ops.mul(t, scale))\n"
                       "    return fusion_func\n"
                       "build = make(2.5)\n"
                       "with FusionDefinition() as fd:\n"
                       "    build(fd)\n");
  EXPECT_EQ(script.definitions.size(), 1u);
  EXPECT_EQ(script.definitions[0].functionName, "fusion_func");
  EXPECT_NE(ir(script).find("2.5"), std::string::npos) << ir(script);
}

// The test style: inputs first, from_pytorch reads them, execute runs them.
TEST(InterpreterTest, FromPytorchTakesTheInputsDefinedBeforeTheFunction) {
  Script script =
      read(std::string(kDirectHeader) +
           "inputs = [\n"
           "    torch.randn(4, 8, device='cuda', dtype=torch.bfloat16),\n"
           "    torch.randn(8, 4, device='cuda').t(),\n"
           "    torch.randn(8, device='cuda').expand(4, 8),\n"
           "]\n"
           "def fusion_func(fd: FusionDefinition):\n"
           "    t0 = fd.from_pytorch(inputs[0])\n"
           "    t1 = fd.from_pytorch(inputs[1])\n"
           "    t2 = fd.from_pytorch(inputs[2])\n"
           "    t3 = fd.ops.add(fd.ops.cast(t0, DataType.Float), t1)\n"
           "    fd.add_output(fd.ops.mul(t3, t2))\n"
           "with FusionDefinition() as fd:\n"
           "    fusion_func(fd)\n"
           "nvf_out = fd.execute(inputs)\n"
           "torch.testing.assert_close(nvf_out[0], (inputs[0] + inputs[1]) * inputs[2])\n"
           "for out in nvf_out:\n"
           "    assert out.shape == (4, 8)\n");
  ASSERT_TRUE(script.inputs.has_value());
  ASSERT_EQ(script.inputs->size(), 3u);
  const auto& fusionInputs = script.fusion().inputs();
  ASSERT_EQ(fusionInputs.size(), 3u);
  EXPECT_EQ(fusionInputs[0]->dtype(), DataType::BFloat16);
  EXPECT_EQ(fusionInputs[1]->dtype(), DataType::Float);
  // The transposed input keeps its layout: strides (1, 4).
  EXPECT_EQ(*(*script.inputs)[1].stridedStrides, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(*(*script.inputs)[2].stridedStrides, (std::vector<int64_t>{0, 1}));
}

// Indexing a torch tensor views it, as torch does: a misaligned start, a
// strided slice, an int index dropping an axis.
// What nvFuser's test modules ask besides definitions: their suite's
// architecture predicates (answered for compute capability 9.0, FuserLab's
// default device), the module's version(), and fd.fusion.print_math() (the
// IR printer's text). A test branching on is_pre_hopper() takes the Hopper
// branch.
TEST(InterpreterTest, ArchitecturePredicatesVersionAndPrintMath) {
  Script script = read(std::string(kDirectHeader) +
                       "from nvfuser_direct import version\n"
                       "from python.direct_utils import is_pre_ampere, is_pre_hopper, "
                       "is_pre_blackwell, microarchitecture_is\n"
                       "assert version() == '" FUSERLAB_TEST_VERSION
                       "'\n"
                       "with FusionDefinition() as fd:\n"
                       "    t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)\n"
                       "    if is_pre_ampere() or is_pre_hopper():\n"
                       "        fd.add_output(fd.ops.neg(t0))\n"
                       "    elif microarchitecture_is(9, 0) and is_pre_blackwell():\n"
                       "        fd.add_output(fd.ops.abs(t0))\n"
                       "math = fd.fusion.print_math()\n"
                       "assert 'abs(' in math\n");
  EXPECT_EQ(count(ir(script), "abs("), 1u) << ir(script);
  EXPECT_EQ(count(ir(script), "neg("), 0u) << ir(script);
}

// nvFuser casts reshape sizes to its index type: a size computed as a
// Float (192 * reciprocal(n), its test_reshape_dynamic) is truncated.
TEST(InterpreterTest, AFloatingReshapeSizeIsCastToAnInteger) {
  Script script = read(std::string(kDirectHeader) +
                       "with FusionDefinition() as fd:\n"
                       "    t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)\n"
                       "    n = fd.define_scalar(None, dtype=DataType.Int)\n"
                       "    s = fd.ops.mul(fd.define_scalar(192, dtype=DataType.Int), "
                       "fd.ops.reciprocal(n))\n"
                       "    fd.add_output(fd.ops.reshape(t0, new_shape=[n, s]))\n");
  EXPECT_EQ(count(ir(script), "cast("), 1u) << ir(script);
}

TEST(InterpreterTest, IndexingATorchTensorViewsIt) {
  Script script =
      read(std::string(kDirectHeader) +
           "base = torch.randn(10, 8, device='cuda')\n"
           "inputs = [base[1:, ::2], torch.randn(9, device='cuda')[1:], base[3]]\n"
           "def fusion_func(fd: FusionDefinition):\n"
           "    a = fd.from_pytorch(inputs[0])\n"
           "    b = fd.from_pytorch(inputs[1])\n"
           "    c = fd.from_pytorch(inputs[2])\n"
           "    fd.add_output(fd.ops.add(fd.ops.sum(a, dims=[1]), fd.ops.sum(c, dims=[0])))\n"
           "    fd.add_output(fd.ops.neg(b))\n"
           "with FusionDefinition() as fd:\n"
           "    fusion_func(fd)\n");
  ASSERT_TRUE(script.inputs.has_value());
  const auto& specs = *script.inputs;
  EXPECT_EQ(*specs[0].stridedSizes, (std::vector<int64_t>{9, 4}));
  EXPECT_EQ(*specs[0].stridedStrides, (std::vector<int64_t>{8, 2}));
  EXPECT_EQ(specs[0].stridedOffset, 8);
  EXPECT_EQ(*specs[1].stridedSizes, (std::vector<int64_t>{8}));
  EXPECT_EQ(specs[1].stridedOffset, 1);
  EXPECT_EQ(*specs[2].stridedSizes, (std::vector<int64_t>{8}));
  EXPECT_EQ(specs[2].stridedOffset, 24);
}

// torch.tensor of explicit values, with torch's dtype inference: the
// tensor holds those values in row-major order.
TEST(InterpreterTest, TorchTensorOfValuesHoldsThem) {
  Script script = read(std::string(kDirectHeader) +
                       "inputs = [torch.tensor([[1, -2, 3], [4, 5, -6]], device='cuda'),\n"
                       "          torch.tensor([0.5, 1.5]), torch.tensor(True),\n"
                       "          torch.tensor([1, 2], dtype=torch.float16)]\n"
                       "with FusionDefinition() as fd:\n"
                       "    for t in inputs:\n"
                       "        fd.add_output(fd.ops.abs(fd.from_pytorch(t)))\n");
  ASSERT_TRUE(script.inputs.has_value());
  const auto& specs = *script.inputs;
  EXPECT_EQ(specs[0].sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(specs[0].dtype, DataType::Int);
  EXPECT_EQ(specs[1].dtype, DataType::Float);
  EXPECT_EQ(specs[2].dtype, DataType::Bool);
  EXPECT_TRUE(specs[2].sizes.empty());
  EXPECT_EQ(specs[3].dtype, DataType::Half);
  const runtime::Arguments tensors = makeInputs(specs, 0);
  const auto& first = std::get<runtime::Tensor>(tensors[0]);
  EXPECT_EQ(first.item({0, 1}), -2.0);
  EXPECT_EQ(first.item({1, 2}), -6.0);
  EXPECT_EQ(std::get<runtime::Tensor>(tensors[1]).item({1}), 1.5);
}

TEST(InterpreterTest, InputsWrittenAfterTheBlockBelongToIt) {
  Script script =
      read(std::string(kDirectHeader) +
           "def nvfuser_fusion(fd : FusionDefinition) -> None :\n"
           "    tv0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, "
           "is_cpu=False)\n"
           "    c0 = fd.define_scalar(None, dtype=DataType.Int)\n"
           "    v = fd.define_vector(2)\n"
           "    tv1 = fd.ops.mul(tv0, c0)\n"
           "    fd.add_output(tv1)\n"
           "with FusionDefinition() as fd:\n"
           "    nvfuser_fusion(fd)\n"
           "inputs = [\n"
           "    torch.testing.make_tensor((5,), dtype=torch.float32, device='cuda:0'),\n"
           "    3, 4, 5,\n"
           "]\n"
           "fd.execute(inputs)\n");
  ASSERT_TRUE(script.inputs.has_value());
  EXPECT_EQ(script.inputs->size(), 4u);
  // define_vector(2) adds two symbolic Int inputs.
  EXPECT_EQ(script.fusion().inputs().size(), 4u);
  EXPECT_EQ(script.fusion().inputs()[2]->dtype(), DataType::Int);
}

TEST(InterpreterTest, BothImportHeadersAndAliases) {
  const std::string body =
      "def f(fd):\n"
      "    t = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DT.Half)\n"
      "    fd.add_output(t)\n";
  for (const std::string header : {"from nvfuser import FusionDefinition, DataType as DT\n",
                                   "from nvfuser_direct import FusionDefinition, DataType as DT\n",
                                   "import nvfuser_direct as nvfd\nDT = nvfd.DataType\n",
                                   "import nvfuser\nDT = nvfuser.DataType\n",
                                   "from nvfuser_direct import *\nDT = DataType\n"}) {
    SCOPED_TRACE(header);
    Script script = read(header + body);
    EXPECT_EQ(script.fusion().inputs().at(0)->dtype(), DataType::Half);
  }
  Script helper = read(
      "import torch\n"
      "from nvfuser_direct import FusionDefinition\n"
      "from nvfuser_direct.pytorch_utils import torch_dtype_to_nvfuser_dtype\n"
      "def f(fd, dtype=torch_dtype_to_nvfuser_dtype(torch.bfloat16)):\n"
      "    fd.add_output(fd.define_tensor(shape=[-1], dtype=dtype))\n");
  EXPECT_EQ(helper.fusion().inputs().at(0)->dtype(), DataType::BFloat16);
}

TEST(InterpreterTest, TwoFusionsFromOneFunctionGetTheirOwnInputs) {
  Script script = read(std::string(kDirectHeader) +
                       "def g(fd, dtype):\n"
                       "    t = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype)\n"
                       "    fd.add_output(fd.ops.abs(t))\n"
                       "with FusionDefinition() as fd:\n"
                       "    g(fd, DataType.Float)\n"
                       "inputs = [torch.randn(4)]\n"
                       "fd.execute(inputs)\n"
                       "with FusionDefinition() as fd:\n"
                       "    g(fd, DataType.Half)\n"
                       "inputs = [torch.randn(6, dtype=torch.float16)]\n"
                       "fd.execute(inputs)\n");
  ASSERT_EQ(script.definitions.size(), 2u);
  EXPECT_EQ(script.definitions[0].functionName, "g");
  EXPECT_EQ(script.definitions[1].functionName, "g_2");
  EXPECT_EQ(script.executed, 1u);
  ASSERT_TRUE(script.inputs.has_value());
  EXPECT_EQ(script.inputs->at(0).sizes, (std::vector<int64_t>{6}));
  ASSERT_NE(script.inputsFor(0), nullptr);
  EXPECT_EQ(script.inputsFor(0)->at(0).sizes, (std::vector<int64_t>{4}));
}

TEST(InterpreterTest, DecoratedTestFunctionsAndRunTimeChecksAreSkipped) {
  Script script = read(std::string(kDirectHeader) +
                       "import pytest\n"
                       "@pytest.mark.parametrize('dtype', [torch.float32])\n"
                       "def test_unused(dtype):\n"
                       "    raise RuntimeError('not run')\n"
                       "with FusionDefinition() as fd:\n"
                       "    t = fd.define_tensor(shape=[2, 3], contiguity=[True, True])\n"
                       "    fd.add_output(fd.ops.sum(t, dims=[0, 1]))\n"
                       "inputs = [torch.ones(2, 3)]\n"
                       "out, = fd.execute(inputs)\n"
                       "assert out.item() == 6.0\n"
                       "if __name__ == '__main__':\n"
                       "    torch.manual_seed(0)\n");
  EXPECT_EQ(script.definitions.size(), 1u);
  EXPECT_EQ(script.definitions[0].functionName, "fusion");
  EXPECT_TRUE(script.inputs.has_value());
}

// A test function pasted whole from nvFuser's suite runs with its fixture
// and the first of its parametrized values.
TEST(InterpreterTest, PastedTestFunctionRunsWithItsFixture) {
  Script script =
      read(std::string(kDirectHeader) +
           "import pytest\n"
           "@pytest.mark.parametrize('dtype,n', [(torch.bfloat16, 3), (torch.float32, 4)])\n"
           "def test_sum_rows(nvfuser_direct_test, dtype, n, scale=2.0):\n"
           "    inputs = [torch.randn(n, 8, device='cuda', dtype=dtype), torch.tensor(1.5)]\n"
           "    def fusion_func(fd: FusionDefinition):\n"
           "        t0 = fd.from_pytorch(inputs[0])\n"
           "        s = fd.from_pytorch(inputs[1])\n"
           "        t1 = fd.ops.sum(fd.ops.mul(t0, scale), [1], False, DataType.Float)\n"
           "        fd.add_output(fd.ops.mul(t1, s))\n"
           "    nvf_out, _ = nvfuser_direct_test.exec_nvfuser(fusion_func, inputs)\n"
           "    eager_out = torch.sum(inputs[0] * scale, dim=1)\n"
           "    nvfuser_direct_test.assertEqual(eager_out, nvf_out[0])\n");
  ASSERT_EQ(script.definitions.size(), 1u);
  EXPECT_EQ(script.definitions[0].functionName, "fusion_func");
  ASSERT_TRUE(script.inputs.has_value());
  ASSERT_EQ(script.inputs->size(), 2u);
  EXPECT_EQ(script.inputs->at(0).sizes, (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(script.inputs->at(0).dtype, DataType::BFloat16);
  EXPECT_TRUE(script.inputs->at(1).sizes.empty());
  EXPECT_EQ(script.fusion().inputs().at(0)->dtype(), DataType::BFloat16);
  EXPECT_NE(ir(script).find("2.0"), std::string::npos);
}

// nvFuser's older suite: test methods of a TestCase, `self` the fixture.
TEST(InterpreterTest, PastedTestCaseMethodRunsWithSelfAsTheFixture) {
  Script script = read(
      "import torch\n"
      "from nvfuser import FusionDefinition, DataType\n"
      "class TestNvFuserFrontend(NVFuserTest):\n"
      "    def test_basic(self):\n"
      "        inputs = [torch.ones(2, 4, 8, device='cuda'), torch.ones(2, 4, 8, device='cuda')]\n"
      "        def fusion_func(fd: FusionDefinition):\n"
      "            t0 = fd.from_pytorch(inputs[0])\n"
      "            t1 = fd.from_pytorch(inputs[1])\n"
      "            c2 = fd.define_scalar(3.0)\n"
      "            t3 = fd.ops.add(t0, t1)\n"
      "            t4 = fd.ops.mul(t3, c2)\n"
      "            t5 = fd.ops.sum(t4, [-1], False, DataType.Float)\n"
      "            fd.add_output(t5)\n"
      "        nvf_out, _ = self.exec_nvfuser(fusion_func, inputs)\n"
      "        eager_out = torch.sum((inputs[0] + inputs[1]) * 3.0, dim=-1)\n"
      "        self.assertEqual(eager_out, nvf_out[0])\n");
  ASSERT_EQ(script.definitions.size(), 1u);
  ASSERT_TRUE(script.inputs.has_value());
  EXPECT_EQ(script.inputs->size(), 2u);
  EXPECT_EQ(count(ir(script), "= sum("), 1u) << ir(script);
}

// Other context managers (torch.no_grad, contextlib) run their body; a
// value of one FusionDefinition passed to another's op is an error.
TEST(InterpreterTest, OtherContextsRunTheirBodyAndFusionsDoNotMix) {
  Script script = read(std::string(kDirectHeader) +
                       "import contextlib\n"
                       "with contextlib.nullcontext() as unused:\n"
                       "    pass\n"
                       "with torch.no_grad():\n"
                       "    with FusionDefinition() as fd:\n"
                       "        fd.add_output(fd.ops.neg(fd.define_tensor(shape=[-1])))\n");
  EXPECT_EQ(script.definitions.size(), 1u);
  expectError(std::string(kDirectHeader) +
                  "with FusionDefinition() as a:\n"
                  "    t = a.define_tensor(shape=[-1])\n"
                  "with FusionDefinition() as b:\n"
                  "    u = b.define_tensor(shape=[-1])\n"
                  "    b.add_output(b.ops.add(u, t))\n",
              7, 31, "belongs to another FusionDefinition");
}

// try/except takes what the script raises; what FuserLab cannot read
// stays an error; pytest.raises reads on past a failing body.
TEST(InterpreterTest, TryCatchesWhatTheScriptRaises) {
  Script script = read(std::string(kDirectHeader) +
                       "import pytest\n"
                       "log = []\n"
                       "try:\n"
                       "    raise ValueError('first')\n"
                       "except KeyError:\n"
                       "    log.append('wrong')\n"
                       "except (RuntimeError, ValueError) as e:\n"
                       "    log.append(e)\n"
                       "else:\n"
                       "    log.append('else')\n"
                       "finally:\n"
                       "    log.append('finally')\n"
                       "try:\n"
                       "    assert len(log) == 0\n"
                       "except AssertionError:\n"
                       "    log.append('assert')\n"
                       "assert log == ['ValueError: first', 'finally', 'assert'], log\n"
                       "with FusionDefinition() as fd:\n"
                       "    t = fd.define_tensor(shape=[-1, -1])\n"
                       "    with pytest.raises(RuntimeError):\n"
                       "        fd.ops.add(t, fd.ops.sum(t, dims=[5]))\n"
                       "    fd.add_output(fd.ops.neg(t))\n");
  EXPECT_EQ(count(ir(script), "= neg("), 1u) << ir(script);
  expectError(
      std::string(kDirectHeader) + "try:\n    fd.ops.frobnicate(1)\nexcept Exception:\n    pass\n",
      4, 5, "fd is not defined");
}

// nvfuser_direct's reductions over one axis: dim= (and old keep_dim=).
TEST(InterpreterTest, ReductionsTakeDimAsWellAsDims) {
  Script script = read(std::string(kDirectHeader) +
                       "with FusionDefinition() as fd:\n"
                       "    t = fd.define_tensor(shape=[-1, -1])\n"
                       "    fd.add_output(fd.ops.sum(t, dim=1, keepdim=True))\n"
                       "    fd.add_output(fd.ops.max(t, dim=0, keep_dim=False))\n");
  const auto& outputs = script.fusion().outputs();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].val->as<ir::TensorView>()->rank(), 2);
  EXPECT_EQ(outputs[1].val->as<ir::TensorView>()->rank(), 1);
}

TEST(InterpreterTest, PartialBindsArguments) {
  Script script = read(std::string(kDirectHeader) +
                       "from functools import partial\n"
                       "def ops_fusion(fd, dtype, num_iters):\n"
                       "    t = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype)\n"
                       "    for _ in range(num_iters):\n"
                       "        t = fd.ops.cos(t)\n"
                       "    fd.add_output(t)\n"
                       "fusion_fn = partial(ops_fusion, dtype=DataType.Half, num_iters=3)\n"
                       "with FusionDefinition() as fd:\n"
                       "    fusion_fn(fd)\n");
  EXPECT_EQ(count(ir(script), "= cos("), 3u) << ir(script);
  EXPECT_EQ(script.definitions.at(0).functionName, "ops_fusion");
}

// squeeze_expanded=True removes an expanded broadcast axis (stride 0,
// extent > 1), as nvFuser's; without it the squeeze is an error, and the
// writer prints the flag back.
TEST(InterpreterTest, SqueezeExpandedRemovesAnExpandedAxis) {
  const std::string head =
      std::string(kDirectHeader) +
      "with FusionDefinition() as fd:\n"
      "    t = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, None, True])\n";
  Script script =
      read(head + "    fd.add_output(fd.ops.squeeze(t, dims=[1], squeeze_expanded=True))\n");
  EXPECT_EQ(script.fusion().outputs().at(0).val->as<ir::TensorView>()->rank(), 2);
  const std::string written = writeScript(script.fusion());
  EXPECT_NE(written.find("squeeze_expanded=True"), std::string::npos) << written;
  EXPECT_EQ(ir::printFusionIr(readScript(written, "w.py").fusion()), ir(script));
  expectError(head + "    fd.add_output(fd.ops.squeeze(t, dims=[1]))\n", 5, 19,
              "is an expanded broadcast; squeezing it needs squeeze_expanded=True");
}

TEST(InterpreterTest, MistakesAreErrorsAtTheirPosition) {
  const std::string head = std::string(kDirectHeader) +
                           "with FusionDefinition() as fd:\n"
                           "    t = fd.define_tensor(shape=[-1])\n";
  expectError(head + "    assert t.ndim == 2, 'rank'\n", 5, 5,
              "assertion failed: (t.ndim == 2) (rank)");
  expectError(head + "    raise ValueError('bad dtype')\n", 5, 5,
              "the script raises ValueError: bad dtype");
  expectError(head + "    xs = [1, 2]\n    xs[5] = 1\n", 6, 8, "index 5 is out of range");
  expectError(head + "    xs = [1, 2, 3]\n    del xs[0], xs\n    n = len(xs)\n", 7, 13,
              "xs is not defined");
  expectError(head + "    a, b = [1, 2, 3]\n", 5, 5, "expected 2 values to unpack, found 3");
  expectError(
      "def f(fd, x):\n    pass\nwith FusionDefinition() as fd:\n"
      "    f(fd, 1, 2)\n",
      4, 14, "f() takes 2 positional arguments but 3 were given");
  expectError(
      "def f(fd, x):\n    pass\nwith FusionDefinition() as fd:\n"
      "    f(fd, y=1)\n",
      4, 11, "unexpected keyword argument 'y'");
  expectError(
      "def f(fd, x):\n    pass\nwith FusionDefinition() as fd:\n"
      "    f(fd)\n",
      4, 5, "missing the argument 'x'");
  expectError("def r(n):\n    return r(n)\nr(1)\n", 2, 12, "functions call each other more than");
  expectError("x = 0\nwhile True:\n    x += 1\n", 2, 7, "the script runs more than");
  expectError("xs = [0] * (1 << 40)\n", 1, 10, "more than FuserLab's reader keeps");
  // A loop that never ends builds ops until the reader's bound on them.
  expectError(head + "    while True:\n        t = fd.ops.neg(t)\n", 6, 13,
              "the definition builds more than 100000 ops");
}

// The hostile corpus (tests/cli/test_cli_hostile.cpp): values a script can
// make that no walk over them may follow to the end. A list holding itself
// overflowed the stack in ==, < and str(); a list of itself twice, doubled
// sixty times, made == and sorted() visit 2^60 elements; a string doubled
// sixty times, and twenty million retained list elements, ran out of memory.
// A list that holds itself outlives every name of it (shared elements):
// leaked on every script that made one, until LeakSanitizer said so. The
// arena of an interpretation empties what is left of its lists at its end.
TEST(InterpreterTest, ListsThatHoldThemselvesAreFreedWithTheirArena) {
  std::weak_ptr<ValueList> selfHolding;
  std::weak_ptr<ValueList> pair;
  {
    ValueArena arena;
    Value x = Value::list({});
    x.elements->push_back(x);
    selfHolding = x.elements;
    Value d = Value::dict({});
    Value e = Value::dict({Value::integer(1), d});
    d.elements->push_back(Value::integer(2));
    d.elements->push_back(e);
    pair = d.elements;
  }
  EXPECT_TRUE(selfHolding.expired());
  EXPECT_TRUE(pair.expired());
  // Outside an arena nothing is recorded (and nothing emptied).
  Value kept = Value::list({Value::integer(1)});
  { ValueArena later; }
  EXPECT_EQ(kept.items().size(), 1u);
}

TEST(InterpreterTest, SelfReferentialAndDoublingValuesAreBounded) {
  const std::string fusion =
      "with FusionDefinition() as fd:\n"
      "    fd.add_output(fd.define_tensor(shape=[-1]))\n";
  Script script = read(std::string(kDirectHeader) +
                       "x = []\nx.append(x)\nassert x == x\ns = str(x)\n"
                       "assert len(s) < 2000\nassert x in [x]\n" +
                       fusion);
  EXPECT_EQ(script.fusion().outputs().size(), 1u);
  expectError("x = []\nx.append(x)\ny = []\ny.append(y)\nb = x == y\n", 5, 5,
              "values nested more than 200 deep (a list that contains itself?)");
  expectError("x = []\nx.append(x)\nb = x < x\n", 3, 5, "values nested more than 200");
  expectError("d = {}\nd[1] = d\ne = {}\ne[1] = e\nb = d == e\n", 5, 5,
              "values nested more than 200");
  const std::string doubled = "x = [[]]\nfor i in range(60):\n    x = [x, x]\n";
  expectError(doubled + "y = [[]]\nfor i in range(60):\n    y = [y, y]\nb = x == y\n", 7, 5,
              "the script compares or prints more than 4000000 list elements");
  expectError(doubled + "y = sorted(x)\n", 4, 5, "compares or prints more than");
  expectError("x = 'ab'\nfor i in range(60):\n    x = x + x\n", 3, 11,
              "more than FuserLab's reader keeps");
  expectError("x = ['ab' * 1000] * 1000\ny = ''.join(x)\n", 2, 5,
              "more than FuserLab's reader keeps");
  expectError("d = {}\nfor i in range(60000):\n    d[i] = [i] * 1000\n", 3, 16,
              "builds or copies more than 4000000 list elements");
}

// Issue 43, the second hostile corpus: lookups into lists and dicts were not
// bounded. 60,000 dict insertions compared 1.8 billion keys (10 s); seven
// times as many, or 420,000 'in' tests on a 60,000-element list, ran for
// minutes. Lookups and scans have a bound of their own (50 million elements,
// about a second), larger than the element work's.
TEST(InterpreterTest, LookupsInLargeListsAndDictsAreBounded) {
  const std::string looks = "the script looks through more than 50000000 list or dict elements";
  expectError(
      "d = {}\nfor j in range(7):\n    for i in range(60000):\n        d[j * 60000 + i] = i\n", 4,
      9, looks);
  expectError(
      "l = list(range(60000))\nfor j in range(7):\n    for i in range(60000):\n"
      "        b = -1 in l\n",
      4, 13, looks);
  expectError("l = list(range(60000))\nfor i in range(60000):\n    l.index(59999)\n", 3, 5, looks);
  expectError("d = {i: i for i in range(60000)}\n", 1, 5, looks);
  // A dict of thousands of keys, and a loop of lookups into it, still read.
  Script script = read(std::string(kDirectHeader) +
                       "d = {i: i for i in range(3000)}\nn = 0\nfor i in range(3000):\n"
                       "    n += d[i]\nassert n == 4498500\n"
                       "with FusionDefinition() as fd:\n"
                       "    fd.add_output(fd.define_tensor(shape=[-1]))\n");
  EXPECT_EQ(script.fusion().outputs().size(), 1u);
}

// Issue 43 (fuzz_reader timeouts r-timeout-5b3da32f, r-slow-unit-2476f881:
// loops building 100,000 ops, 2 to 3 s each under ASan, over 10 s on a
// loaded machine). Every fd.ops call looked its name up by a scan of the op
// names, each name through ir::toString, which copied its whole table onto
// the stack: a call of the 45th unary op (bitwise_not) cost 45 table copies
// and compares, a shape op some 70, more than the op itself. A name is one
// hash lookup now, so an op late in the tables reads as fast as the first.
// Same work but for the name (one scalar UnaryOp each), best of 5
// interleaved runs: with the old lookup bitwise_not took 1.8 times as long
// as neg (1.03 now; RelWithDebInfo).
TEST(InterpreterTest, AnOpsNameCostsTheSameWhereverItsTableHasIt) {
  auto script = [](std::string_view op) {
    return "from nvfuser import FusionDefinition, DataType\n"
           "def f(fd : FusionDefinition) -> None :\n"
           "    x = fd.define_scalar(dtype=DataType.Int)\n"
           "    for i in range(200):\n"
           "        for j in range(200):\n"
           "            y = fd.ops." +
           std::string(op) +
           "(x)\n"
           "    fd.add_output(y)\n";
  };
  const std::string first = script("neg");
  const std::string last = script("bitwise_not");
  auto seconds = [](const std::string& source) {
    const auto start = std::chrono::steady_clock::now();
    const Script read = readScript(source, "t.py");
    EXPECT_EQ(read.fusion().exprs().size(), 40000u);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double bestFirst = 1e9;
  double bestLast = 1e9;
  for (int run = 0; run < 5; ++run) {
    bestFirst = std::min(bestFirst, seconds(first));
    bestLast = std::min(bestLast, seconds(last));
  }
  ::testing::Test::RecordProperty("ratio", std::to_string(bestLast / bestFirst));
  EXPECT_LT(bestLast, 1.6 * bestFirst)
      << "neg " << bestFirst << " s, bitwise_not " << bestLast << " s";
}
}  // namespace
}  // namespace fuserlab::frontend
