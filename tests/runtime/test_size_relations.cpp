// Input sizes that contradict an op of the fusion (issue 43 item 3) are
// refused by the compiler, before any kernel exists, as the CPU reference
// refuses them; sizes the reference runs (size-1 axes that broadcast, a
// slice inside its axis, an index shorter than the input) still compile.
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "core/compiler/compile_options.h"
#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/reference/reference_run.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::runtime {
namespace {

struct Case {
  std::string name;
  std::string definitions;  //!< define_tensor / define_scalar lines
  std::string body;         //!< the ops and add_output
  std::string inputs;       //!< --inputs spec
  std::string refusal;      //!< a part of the compile error; empty: accepted
};

std::string scriptOf(const Case& c) {
  return "from nvfuser import FusionDefinition, DataType\n\n"
         "def fusion(fd: FusionDefinition) -> None:\n" +
         c.definitions + c.body + "\nwith FusionDefinition() as fd:\n    fusion(fd)\n";
}

std::string errorOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

const std::string kX2 =
    "    x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
    "dtype=DataType.Float)\n";
const std::string kY2 =
    "    y = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
    "dtype=DataType.Float)\n";
const std::string kX1 =
    "    x = fd.define_tensor(shape=[-1], contiguity=[True], "
    "dtype=DataType.Float)\n";
const std::string kW1 =
    "    w = fd.define_tensor(shape=[-1], contiguity=[True], "
    "dtype=DataType.Float)\n";
const std::string kI2 =
    "    i = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
    "dtype=DataType.Int)\n";

std::vector<Case> cases() {
  const std::string add = "    z = fd.ops.add(x, y)\n    fd.add_output(z)\n";
  const std::string weight =
      "    wb = fd.ops.broadcast_in_dim(w, shape=[4, 6], broadcast_dims=[1])\n"
      "    z = fd.ops.mul(x, wb)\n    fd.add_output(z)\n";
  const std::string cat = "    z = fd.ops.cat([x, y], dim=1)\n    fd.add_output(z)\n";
  const std::string matmul = "    z = fd.ops.matmul(x, y)\n    fd.add_output(z)\n";
  const std::string linear = "    z = fd.ops.linear(x, y)\n    fd.add_output(z)\n";
  const std::string expand = "    z = fd.ops.expand(x, shape=[7])\n    fd.add_output(z)\n";
  const std::string slice =
      "    z = fd.ops.slice(x, start_indices=[2], end_indices=[10], strides=[1])\n"
      "    fd.add_output(z)\n";
  const std::string reshape = "    z = fd.ops.reshape(x, new_shape=[2, 5])\n    fd.add_output(z)\n";
  const std::string gather = "    z = fd.ops.take_along_axis(x, i, dim=1)\n    fd.add_output(z)\n";
  const std::string gatherFull =
      "    i = fd.ops.full(shape=[4, 2], fill_value=7, dtype=DataType.Int)\n" + gather;
  const std::string selectIota =
      "    i = fd.ops.iota(length=5, start=0, step=1, dtype=DataType.Int)\n"
      "    z = fd.ops.index_select(x, i, dim=0)\n    fd.add_output(z)\n";
  const std::string squeeze = "    z = fd.ops.squeeze(x, dims=[1])\n    fd.add_output(z)\n";
  const std::string kScalar = "    k = fd.define_scalar(None, dtype=DataType.Int)\n";
  const std::string topk = "    v, j = fd.ops.topk(x, k, dim=1)\n    fd.add_output(v)\n";
  const std::string pad = "    z = fd.ops.pad(x, [k, 0, 0, 0])\n    fd.add_output(z)\n";
  return {
      {"AddMismatch", kX2 + kY2, add, "4x3:f32,4x2:f32",
       "add: operand sizes 3 and 2 do not match on axis 1 (T0 ('x' in the script) has 3, "
       "T1 ('y' in the script) has 2"},
      {"AddSizeOneBroadcasts", kX2 + kY2, add, "4x3:f32,4x1:f32", ""},
      {"AddSizeOneGivesTheOutputsExtent", kX2 + kY2, add, "1x3:f32,4x3:f32",
       "add: T2 ('z' in the script) has size 1 on axis 0 but its operands give 4"},
      {"WeightOfAnotherWidth", kX2 + kW1, weight, "4x6:f32,5:f32",
       "mul: operand sizes 6 and 5 do not match on axis 1"},
      {"WeightOfTheSameWidth", kX2 + kW1, weight, "4x6:f32,6:f32", ""},
      {"CatWidthsOffTheCatAxis", kX2 + kY2, cat, "4x3:f32,5x3:f32",
       "cat: input 1 (T1 ('y' in the script)) has size 5 on axis 0 but input 0 "
       "(T0 ('x' in the script)) has 4"},
      {"CatWidthsOnTheCatAxis", kX2 + kY2, cat, "3x4:f32,3x5:f32", ""},
      {"MatmulInnerSizes", kX2 + kY2, matmul, "4x3:f32,5x2:f32",
       "matmul: the operands' inner sizes 3 and 5 differ"},
      {"MatmulAgreeing", kX2 + kY2, matmul, "4x3:f32,3x2:f32", ""},
      {"LinearInnerSizes", kX2 + kY2, linear, "4x3:f32,2x5:f32",
       "linear: the input's last size 3 differs from the weight's 5"},
      {"ExpandOfANonBroadcastAxis", kX1, expand, "5:f32",
       "expand: axis 0 of size 5 cannot be expanded to 7"},
      {"ExpandOfASizeOneAxisDeclaredSymbolic", kX1, expand, "1:f32",
       "expand: axis 0 of T0 ('x' in the script) has size 1 and is expanded to 7, "
       "but the fusion sizes the result"},
      {"ExpandToItsOwnSize", kX1, expand, "7:f32", ""},
      {"SlicePastTheEnd", kX1, slice, "8:f32",
       "slice: [2:10:1] of axis 0 of T0 ('x' in the script) (size 8) has 6 elements, "
       "but the fusion sizes the result 8"},
      {"SliceInside", kX1, slice, "12:f32", ""},
      {"ReshapeToAnotherCount", kX1, reshape, "12:f32",
       "reshape: cannot reshape 12 elements (T0 ('x' in the script) [12]) into 10"},
      {"ReshapeToTheSameCount", kX1, reshape, "10:f32", ""},
      {"GatherIndexLongerThanTheInput", kX2 + kI2, gather, "4x3:f32,5x2:i64",
       "take_along_axis: the index has size 5 on axis 0 but the input only 4"},
      {"GatherConstantIndexOutOfRange", kX2, gatherFull, "4x3:f32",
       "take_along_axis: index 7 is out of range for axis 1 of size 3 of T0 ('x' in "
       "the script) (the index T1 ('i' in the script) is 7, known before the run)"},
      {"GatherConstantIndexInRange", kX2, gatherFull, "4x9:f32", ""},
      {"IndexSelectIotaOutOfRange", kX2, selectIota, "3x2:f32",
       "index_select: index 4 is out of range for axis 0 of size 3"},
      {"IndexSelectIotaInRange", kX2, selectIota, "6x2:f32", ""},
      {"SqueezeOfAnAxisOfSizeThree", kX2, squeeze, "4x3:f32",
       "squeeze: axis 1 of T0 ('x' in the script) has size 3, expected 1"},
      {"SqueezeOfAnAxisOfSizeOne", kX2, squeeze, "4x1:f32", ""},
      {"TopkPastTheAxis", kX2 + kScalar, topk, "4x3:f32,5",
       "topk: k is 5 but axis 1 of T0 ('x' in the script) has 3 elements"},
      {"TopkInsideTheAxis", kX2 + kScalar, topk, "4x3:f32,2", ""},
      {"PadCroppingPastTheAxis", kX2 + kScalar, pad, "4x3:f32,-5",
       "pad: axis 1 of size 3 padded by (-5, 0) would have size -2"},
      {"PadCroppingInside", kX2 + kScalar, pad, "4x3:f32,-1", ""},
  };
}

TEST(SizeRelationsTest, CompileRefusesWhatTheReferenceRefusesAndRunsWhatItRuns) {
  const auto device = scheduler::findBuiltinDevice("h100");
  ASSERT_TRUE(device.has_value());
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const frontend::Script script = frontend::readScript(scriptOf(c), "test.py");
    const std::vector<frontend::InputSpec> specs = frontend::parseInputsOption(c.inputs);
    const std::string compileError = errorOf([&] {
      (void)compileFusion(script.fusion(), compiler::CompileOptions{}, *device,
                          frontend::makeInputShapes(specs));
    });
    const std::string referenceError =
        errorOf([&] { (void)runReference(script.fusion(), frontend::makeInputs(specs, 1)); });
    if (c.refusal.empty()) {
      EXPECT_EQ(compileError, "");
      EXPECT_EQ(referenceError, "");
    } else {
      EXPECT_NE(compileError.find(c.refusal), std::string::npos) << compileError;
      EXPECT_NE(referenceError, "") << "the reference runs what compile refuses";
    }
  }
}

}  // namespace
}  // namespace fuserlab::runtime
