// The `inputs = [...]` block: every torch constructor form FuserLab reads,
// .as_strided views, dtypes and devices, Python numbers, and the errors for
// anything else, each at its entry.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;
using Kind = runtime::TensorInitializer::Kind;

class InputsBlockTest : public ::testing::Test {
 protected:
  // A script whose inputs block holds `entries`, one per line; with the
  // default preamble entry k (from 0) is on line 5 + k, at column 5.
  static std::string frame(const std::vector<std::string>& entries,
                           const std::string& preamble = "import torch") {
    std::string source = preamble +
                         "\ndef f(fd):\n"
                         "    fd.add_output(fd.define_tensor(shape=[-1]))\n"
                         "inputs = [\n";
    for (const std::string& entry : entries) source += "    " + entry + ",\n";
    return source + "]\n";
  }

  static std::vector<InputSpec> read(const std::vector<std::string>& entries,
                                     const std::string& preamble = "import torch") {
    Script script = readScript(frame(entries, preamble), "inputs.py");
    EXPECT_TRUE(script.inputs.has_value());
    return script.inputs.value_or(std::vector<InputSpec>{});
  }

  static InputSpec one(const std::string& entry) {
    std::vector<InputSpec> specs = read({entry});
    EXPECT_EQ(specs.size(), 1u);
    return specs.empty() ? InputSpec{} : specs[0];
  }

  static void expectError(const std::string& entry, int column, std::string_view message) {
    try {
      readScript(frame({entry}), "inputs.py");
      ADD_FAILURE() << "no error for " << entry;
    } catch (const UserError& error) {
      ASSERT_TRUE(error.location()) << error.what();
      EXPECT_EQ(error.location()->line, 5) << error.what();
      EXPECT_EQ(error.location()->column, column) << error.what();
      EXPECT_NE(error.message().find(message), std::string::npos) << error.message();
    }
  }
};

TEST_F(InputsBlockTest, RandnSizesAsArgumentsTupleOrKeyword) {
  std::vector<InputSpec> specs =
      read({"torch.randn(2, 3)", "torch.randn((4, 5), dtype=torch.bfloat16)",
            "torch.randn([6], device='cuda:0', requires_grad=True)", "torch.randn(size=(7,))",
            "torch.randn(())"});
  ASSERT_EQ(specs.size(), 5u);
  EXPECT_EQ(specs[0].sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(specs[0].dtype, DataType::Float) << "torch's default is float32";
  EXPECT_EQ(specs[0].initializer.kind, Kind::Randn);
  EXPECT_EQ(specs[0].device, "cpu");
  EXPECT_FALSE(specs[0].isScalar);
  EXPECT_EQ(specs[1].sizes, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(specs[1].dtype, DataType::BFloat16);
  EXPECT_EQ(specs[2].device, "cuda:0");
  EXPECT_EQ(specs[3].sizes, (std::vector<int64_t>{7}));
  EXPECT_TRUE(specs[4].sizes.empty());
  EXPECT_EQ(specs[1].location.line, 6);
  EXPECT_EQ(specs[1].location.column, 5);
}

TEST_F(InputsBlockTest, RandOnesZeros) {
  std::vector<InputSpec> specs = read({"torch.rand(3, dtype=torch.float64)", "torch.ones(2, 2)",
                                       "torch.zeros((5,), dtype=torch.half)"});
  EXPECT_EQ(specs[0].initializer.kind, Kind::Rand);
  EXPECT_EQ(specs[0].dtype, DataType::Double);
  EXPECT_EQ(specs[1].initializer.kind, Kind::Ones);
  EXPECT_EQ(specs[1].sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(specs[2].initializer.kind, Kind::Zeros);
  EXPECT_EQ(specs[2].dtype, DataType::Half);
}

TEST_F(InputsBlockTest, RandintForms) {
  std::vector<InputSpec> specs = read({"torch.randint(10, (4,))", "torch.randint(-5, 5, (2, 3))",
                                       "torch.randint(low=1, high=7, size=(8,), dtype=torch.int32)",
                                       "torch.randint(0, 2, (3,), dtype=torch.bool)"});
  EXPECT_EQ(specs[0].initializer.kind, Kind::Randint);
  EXPECT_EQ(specs[0].dtype, DataType::Int) << "randint's default is int64";
  EXPECT_EQ(specs[0].initializer.low, 0.0);
  EXPECT_EQ(specs[0].initializer.high, 10.0);
  EXPECT_EQ(specs[1].initializer.low, -5.0);
  EXPECT_EQ(specs[1].sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(specs[2].dtype, DataType::Int32);
  EXPECT_EQ(specs[2].initializer.low, 1.0);
  EXPECT_EQ(specs[3].dtype, DataType::Bool);
}

TEST_F(InputsBlockTest, FullInfersItsDtypeFromTheValue) {
  std::vector<InputSpec> specs =
      read({"torch.full((2,), 3)", "torch.full((2,), 0.5)", "torch.full((2,), True)",
            "torch.full([2], 1, dtype=torch.float16)"});
  EXPECT_EQ(specs[0].initializer.kind, Kind::Full);
  EXPECT_EQ(specs[0].initializer.value, 3.0);
  EXPECT_EQ(specs[0].dtype, DataType::Int);
  EXPECT_EQ(specs[1].dtype, DataType::Float);
  EXPECT_EQ(specs[2].dtype, DataType::Bool);
  EXPECT_EQ(specs[3].dtype, DataType::Half);
}

TEST_F(InputsBlockTest, ArangeForms) {
  std::vector<InputSpec> specs =
      read({"torch.arange(10)", "torch.arange(2, 11, 3)", "torch.arange(0.0, 1.0, 0.25)",
            "torch.arange(5, dtype=torch.float32)"});
  EXPECT_EQ(specs[0].initializer.kind, Kind::Arange);
  EXPECT_EQ(specs[0].sizes, (std::vector<int64_t>{10}));
  EXPECT_EQ(specs[0].dtype, DataType::Int) << "int bounds give int64";
  EXPECT_EQ(specs[1].sizes, (std::vector<int64_t>{3}));
  EXPECT_EQ(specs[1].initializer.start, 2.0);
  EXPECT_EQ(specs[1].initializer.step, 3.0);
  EXPECT_EQ(specs[2].sizes, (std::vector<int64_t>{4}));
  EXPECT_EQ(specs[2].dtype, DataType::Float);
  EXPECT_EQ(specs[3].dtype, DataType::Float);
}

TEST_F(InputsBlockTest, MakeTensorFormsAndImportAliases) {
  std::vector<InputSpec> specs = read({"torch.testing.make_tensor((8, 4), dtype=torch.float16, "
                                       "device='cuda:0', low=-1, high=1)",
                                       "torch.testing.make_tensor(3, 2, dtype=torch.int32)",
                                       "tt.make_tensor((2,), dtype=torch.bfloat16, device='cuda')",
                                       "make_tensor(5, dtype=torch.bool)"},
                                      "import torch\nimport torch.testing as tt\n"
                                      "from torch.testing import make_tensor");
  EXPECT_EQ(specs[0].initializer.kind, Kind::MakeTensor);
  EXPECT_EQ(specs[0].initializer.low, -1.0);
  EXPECT_EQ(specs[0].initializer.high, 1.0);
  EXPECT_EQ(specs[0].sizes, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(specs[0].dtype, DataType::Half);
  EXPECT_EQ(specs[1].sizes, (std::vector<int64_t>{3, 2}));
  EXPECT_FALSE(specs[1].initializer.low.has_value());
  EXPECT_EQ(specs[2].dtype, DataType::BFloat16);
  EXPECT_EQ(specs[2].device, "cuda");
  EXPECT_EQ(specs[3].dtype, DataType::Bool);
}

TEST_F(InputsBlockTest, AsStridedAndCuda) {
  std::vector<InputSpec> specs =
      read({"torch.randn(786432, dtype=torch.bfloat16, device='cuda:0')"
            ".as_strided((1024, 768), (1, 1024))",
            "torch.randn(100).as_strided([4, 4], [20, 2], 3)", "torch.ones(4).cuda()"});
  EXPECT_EQ(specs[0].sizes, (std::vector<int64_t>{786432}));
  EXPECT_EQ(specs[0].stridedSizes, (std::vector<int64_t>{1024, 768}));
  EXPECT_EQ(specs[0].stridedStrides, (std::vector<int64_t>{1, 1024}));
  EXPECT_EQ(specs[0].stridedOffset, 0);
  EXPECT_EQ(specs[1].stridedOffset, 3);
  EXPECT_EQ(specs[2].device, "cuda:0");
  EXPECT_FALSE(specs[2].stridedSizes.has_value());
}

// As nvFuser's own tests build inputs (test_allocation, test_high_complexity,
// the cutlass and narrow-precision tests): torch.empty (filled as
// make_tensor fills), torch.empty_strided, the function form of
// as_strided, and torch.nn.Parameter around a tensor.
TEST_F(InputsBlockTest, EmptyEmptyStridedAsStridedAndParameter) {
  std::vector<InputSpec> specs =
      read({"torch.empty(3, 4, dtype=torch.bfloat16, device='cuda')",
            "torch.empty_strided((4, 3), (1, 4), dtype=torch.float32)",
            "torch.as_strided(torch.randn(100), (4, 4), (20, 2), 3)",
            "torch.nn.Parameter(torch.randn(8, dtype=torch.float16), requires_grad=False)"});
  ASSERT_EQ(specs.size(), 4u);
  EXPECT_EQ(specs[0].sizes, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(specs[0].dtype, DataType::BFloat16);
  EXPECT_EQ(specs[0].initializer.kind, Kind::MakeTensor);
  EXPECT_EQ(specs[1].sizes, (std::vector<int64_t>{12}));
  EXPECT_EQ(specs[1].stridedSizes, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(specs[1].stridedStrides, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(specs[2].sizes, (std::vector<int64_t>{100}));
  EXPECT_EQ(specs[2].stridedSizes, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(specs[2].stridedOffset, 3);
  EXPECT_EQ(specs[3].sizes, (std::vector<int64_t>{8}));
  EXPECT_EQ(specs[3].dtype, DataType::Half);
  EXPECT_EQ(specs[3].initializer.kind, Kind::Randn);
}

TEST_F(InputsBlockTest, PythonNumbersAreScalarEntries) {
  std::vector<InputSpec> specs = read({"0.5", "3", "True", "-2", "1 / 4"});
  ASSERT_EQ(specs.size(), 5u);
  for (const InputSpec& spec : specs) EXPECT_TRUE(spec.isScalar);
  EXPECT_EQ(std::get<double>(specs[0].scalar), 0.5);
  EXPECT_EQ(std::get<int64_t>(specs[1].scalar), 3);
  EXPECT_EQ(std::get<bool>(specs[2].scalar), true);
  EXPECT_EQ(std::get<int64_t>(specs[3].scalar), -2);
  EXPECT_EQ(std::get<double>(specs[4].scalar), 0.25);
}

TEST_F(InputsBlockTest, ReadSpecsMakeTheTensorsTheyDescribe) {
  std::vector<InputSpec> specs = read(
      {"torch.randn(100).as_strided((4, 4), (20, 2), 3)", "torch.randint(3, 7, (64,))", "1.5"});
  runtime::Arguments args = makeInputs(specs, 7);
  ASSERT_EQ(args.size(), 3u);
  const auto& strided = std::get<runtime::Tensor>(args[0]);
  EXPECT_EQ(strided.sizes(), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(strided.strides(), (std::vector<int64_t>{20, 2}));
  EXPECT_EQ(strided.storageOffset(), 3);
  const auto& ints = std::get<runtime::Tensor>(args[1]);
  EXPECT_EQ(ints.dtype(), DataType::Int);
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_GE(ints.item({i}), 3);
    EXPECT_LT(ints.item({i}), 7);
  }
}

TEST_F(InputsBlockTest, UnsupportedEntriesAreErrorsAtTheEntry) {
  expectError("torch.tensor([[1.0], [2.0, 3.0]])", 18,
              "torch.tensor: the nested lists are not rectangular");
  expectError("'abc'", 5, "inputs entry 0 is a string");
  expectError("torch.randn(4).numpy()", 5,
              "inputs entry 0 is the result of the torch method numpy");
  expectError("torch.randn(2, -3)", 20, "size -3 of torch.randn is negative");
  expectError("torch.randn(2, 3, dtype=DataType.Float)", 29,
              "expected a torch dtype (e.g. torch.float32) for argument "
              "'dtype' of torch.randn, found a DataType");
  expectError("torch.randn(2, dtype=torch.uint8)", 26, "torch.uint8 tensors are not supported");
  expectError("torch.randn(2, generator=None)", 20,
              "torch.randn got an unexpected keyword argument 'generator'");
  expectError("torch.randn(8).as_strided((2, 2), (1,))", 39,
              "as_strided got 2 sizes but 1 strides");
  expectError("torch.randint(5, 5, (2,))", 22, "high (5) must be greater than low (5)");
  expectError("torch.arange(0, 10, -1)", 21, "inconsistent with the step's sign");
  expectError("torch.randn()", 5, "torch.randn needs a size");
}

// No input may have more than 2^48 elements (no GPU holds one, and the
// compiler's byte counts must not overflow: fuzz_compile found an int64
// overflow in the pointwise heuristic from a 3e14 x 11008 view), and an
// as_strided view must lie inside its storage, as torch checks.
TEST_F(InputsBlockTest, TensorsPast2To48ElementsAndViewsPastTheirStorageAreErrors) {
  expectError("torch.randn(299999999999956, 11008)", 34,
              "a tensor of 299999999999956 x 11008 elements is more than 2^48");
  expectError("torch.randn((1073741824, 1073741824))", 17, "is more than 2^48");
  expectError("torch.randn(2818048).as_strided((299999999999956, 11008), (11008, 1))", 37,
              "a tensor of 299999999999956 x 11008 elements is more than 2^48");
  expectError("torch.randn(100).as_strided((4, 4), (20, 2), 41)", 33,
              "as_strided(size=4 x 4, stride=20 x 2, storage_offset=41) reaches element 107 "
              "of a storage of 100 elements");
  expectError("torch.randn(100).as_strided((3, 2), (4611686018427387904, 1))", 33,
              "reaches past int64's range");
  // Exactly at the storage's end, and an empty view anywhere, are fine.
  EXPECT_EQ(read({"torch.randn(100).as_strided((4, 4), (20, 2), 33)"}).size(), 1u);
  EXPECT_EQ(read({"torch.randn(1).as_strided((0, 4), (1000, 1000))"}).size(), 1u);
  EXPECT_EQ(read({"torch.arange(0, 1048576)"}).size(), 1u);
  expectError("torch.arange(0, 562949953421312)", 21, "more than 2^48 elements");
}

// torch's Tensor.expand: size-1 axes and new leading axes get stride 0, -1
// keeps an axis; the view is the entry's strided view (stridedSizes and
// stridedStrides), on top of an as_strided view if there is one.
TEST_F(InputsBlockTest, ExpandGivesStrideZeroAxes) {
  std::vector<InputSpec> specs =
      read({"torch.randn(1, 8).expand(4, 8)", "torch.randn(8, device='cuda:0').expand(4, -1)",
            "torch.randn(2, 1, 3, dtype=torch.bfloat16).expand((2, 5, 3))",
            "torch.randn(4, 1).cuda().expand(size=[3, 4, 6])",
            "torch.randn(9).as_strided((4, 2), (1, 4), 1).expand(4, 2)",
            "torch.randn(6).as_strided((6, 1), (1, 1)).expand(6, 5)"});
  ASSERT_EQ(specs.size(), 6u);
  EXPECT_EQ(specs[0].sizes, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(specs[0].stridedSizes, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(specs[0].stridedStrides, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(specs[1].stridedSizes, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(specs[1].stridedStrides, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(specs[1].device, "cuda:0");
  EXPECT_EQ(specs[2].dtype, DataType::BFloat16);
  EXPECT_EQ(specs[2].stridedSizes, (std::vector<int64_t>{2, 5, 3}));
  EXPECT_EQ(specs[2].stridedStrides, (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(specs[3].stridedSizes, (std::vector<int64_t>{3, 4, 6}));
  EXPECT_EQ(specs[3].stridedStrides, (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(specs[3].device, "cuda:0");
  EXPECT_EQ(specs[4].stridedSizes, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(specs[4].stridedStrides, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(specs[4].stridedOffset, 1) << "expand keeps the view's offset";
  EXPECT_EQ(specs[5].stridedStrides, (std::vector<int64_t>{1, 0}));
}

TEST_F(InputsBlockTest, ExpandedSpecsMakeStrideZeroTensors) {
  std::vector<InputSpec> specs =
      read({"torch.randn(1, 3).expand(4, 3)", "torch.arange(3).expand(2, 3)"});
  runtime::Arguments args = makeInputs(specs, 11);
  const auto& rows = std::get<runtime::Tensor>(args[0]);
  EXPECT_EQ(rows.sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(rows.strides(), (std::vector<int64_t>{0, 1}));
  for (int64_t i = 1; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(rows.item({i, j}), rows.item({0, j}));
    }
  }
  const auto& ramp = std::get<runtime::Tensor>(args[1]);
  EXPECT_EQ(ramp.item({1, 2}), 2);
  const runtime::Arguments shapes = makeInputShapes(specs);
  const auto& shape = std::get<runtime::Tensor>(shapes[0]);
  EXPECT_EQ(shape.sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(shape.strides(), (std::vector<int64_t>{0, 1}));
}

TEST_F(InputsBlockTest, ExpandMistakesAreErrorsAtTheSize) {
  // torch.randn(2, 3).expand(4, 3): the 4 is at column 30.
  expectError("torch.randn(2, 3).expand(4, 3)", 30,
              "expand: size 4 at position 0 does not match the tensor's size "
              "2 there; only axes of size 1 expand");
  expectError("torch.randn(2, 3).expand(3)", 30,
              "the number of sizes (1) must be at least the tensor's rank (2");
  expectError("torch.randn(3).expand(-1, 3)", 27, "is a new leading axis and needs a size >= 0");
  expectError("torch.randn(1, 3).expand((2, 1.5))", 30,
              "expected a tuple of ints as the sizes of expand");
  expectError("torch.randn(1, 3).expand()", 5, "expand needs the sizes");
  expectError("torch.randn(1, 1).expand(299999999999956, 11008)", 47, "is more than 2^48");
}

TEST_F(InputsBlockTest, InputsMustBeAListDisplay) {
  try {
    readScript("def f(fd):\n    pass\ninputs = 5\n", "inputs.py");
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    ASSERT_TRUE(error.location());
    EXPECT_EQ(error.location()->line, 3);
    EXPECT_EQ(error.location()->column, 10);
    EXPECT_NE(error.message().find("expected the inputs block as a list"), std::string::npos);
  }
}

}  // namespace
}  // namespace fuserlab::frontend
