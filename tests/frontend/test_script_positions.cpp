// Errors found after reading, at the sizes a run or compile gives (issue 43
// item 8), point at the script: a scalar's evaluation error at the fd call
// that made the scalar, in the fusion as read and in its clones (the passes
// compile a clone).
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/cloner.h"
#include "core/ir/error.h"
#include "core/ir/evaluator.h"
#include "core/ir/fusion.h"
#include "core/reference/reference_run.h"

namespace fuserlab::frontend {
namespace {

constexpr const char* kReshapeBySymbolicRows = R"(from nvfuser import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    x = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    n = fd.define_scalar(None, dtype=DataType.Int)
    y = fd.ops.reshape(x, new_shape=[n, -1])
    fd.add_output(y)

with FusionDefinition() as fd:
    fusion(fd)
)";

//! The error of evaluating every extent of `fusion`'s output with x of 12
//! elements and n = 0 (the reshape's -1 is 12 / n).
std::optional<UserError> evaluationError(const ir::Fusion& fusion) {
  ir::ExpressionEvaluator evaluator;
  const auto* x = fusion.inputs().at(0)->as<ir::TensorView>();
  evaluator.bind(x->logical().at(0)->extent(), int64_t{12});
  evaluator.bind(fusion.inputs().at(1)->as<ir::Scalar>(), int64_t{0});
  const auto* y = fusion.outputs().at(0).val->as<ir::TensorView>();
  try {
    for (const ir::IterDomain* id : y->logical()) (void)evaluator.evaluate(id->extent());
  } catch (const UserError& error) {
    return error;
  }
  return std::nullopt;
}

TEST(ScriptPositionsTest, AnExtentThatDividesByZeroPointsAtTheCallThatMadeIt) {
  const Script script = readScript(kReshapeBySymbolicRows, "reshape.py");
  for (const bool cloned : {false, true}) {
    SCOPED_TRACE(cloned ? "a clone" : "as read");
    std::unique_ptr<ir::Fusion> clone;
    if (cloned) clone = ir::cloneFusion(script.fusion(), nullptr);
    const std::optional<UserError> error = evaluationError(cloned ? *clone : script.fusion());
    ASSERT_TRUE(error.has_value());
    EXPECT_NE(error->message().find("integer division by zero evaluating"), std::string::npos)
        << error->what();
    ASSERT_TRUE(error->location().has_value()) << error->what();
    EXPECT_EQ(error->location()->file, "reshape.py");
    EXPECT_EQ(error->location()->line, 6);
    EXPECT_EQ(error->location()->column, 9);
    EXPECT_NE(std::string(error->what()).find("reshape.py:6:9: error: integer division by zero"),
              std::string::npos)
        << error->what();
  }
}

// Issue 43, the second hostile corpus: an integer division by zero in the
// values the CPU reference computes ("div: integer division by zero at
// output element 0 (T2...)") named no line.
TEST(ScriptPositionsTest, AnOpThatDividesByZeroOnTheReferencePointsAtItsCall) {
  const Script script = readScript(
      "import torch\n"
      "from nvfuser_direct import FusionDefinition, DataType\n"
      "def fusion(fd: FusionDefinition) -> None:\n"
      "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    T2 = fd.ops.exp(fd.ops.cast(fd.ops.div(T0, T1), dtype=DataType.Float))\n"
      "    fd.add_output(T2)\n"
      "with FusionDefinition() as fd:\n"
      "    fusion(fd)\n"
      "inputs = [torch.ones(8, dtype=torch.int64), torch.zeros(8, dtype=torch.int64)]\n",
      "div.py");
  ASSERT_TRUE(script.inputs.has_value());
  const runtime::Arguments inputs = makeInputs(*script.inputs, 1);
  try {
    (void)runtime::runReference(script.fusion(), inputs);
    ADD_FAILURE() << "no error";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("div.py:6:33: error: div: integer division by zero"),
              std::string::npos)
        << error.what();
  }
}

TEST(ScriptPositionsTest, ValuesKeepTheLineOfTheCallThatMadeThem) {
  const Script script = readScript(kReshapeBySymbolicRows, "reshape.py");
  const ir::Fusion& fusion = script.fusion();
  const SourceLocation* x = fusion.scriptLocationOf(fusion.inputs().at(0));
  const SourceLocation* n = fusion.scriptLocationOf(fusion.inputs().at(1));
  const SourceLocation* y = fusion.scriptLocationOf(fusion.outputs().at(0).val);
  ASSERT_NE(x, nullptr);
  ASSERT_NE(n, nullptr);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(x->line, 4);
  EXPECT_EQ(n->line, 5);
  EXPECT_EQ(y->line, 6);
}

}  // namespace
}  // namespace fuserlab::frontend
