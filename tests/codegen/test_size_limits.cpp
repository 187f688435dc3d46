// A tensor of more than 2^48 elements (ir::kMaxTensorElements) made inside a
// definition, by a broadcast_in_dim to a constant shape, is refused by the
// compiler and by the CPU reference before anything counts its elements or
// bytes (fuzz_compile's class of int64 overflows in the heuristics).
#include <functional>

#include <gtest/gtest.h>

#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "core/ir/size_limits.h"
#include "core/reference/reference_run.h"
#include "tests/codegen/codegen_fixture.h"

namespace fuserlab::codegen {
namespace {

std::string broadcastTo(const std::string& rows) {
  return R"(from nvfuser import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    big = fd.ops.broadcast_in_dim(T0, shape=[)" +
         rows + R"(, 11008], broadcast_dims=[1])
    T2 = fd.ops.sum(big, dims=[0], keepdim=False)
    fd.add_output(T2)

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(11008, dtype=torch.float32, device="cuda:0")]
)";
}

std::string errorOf(const std::function<void()>& run) {
  try {
    run();
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(SizeLimitsTest, ATensorPast2To48ElementsInsideADefinitionIsAnError) {
  // 3e14 x 11008 fits int64 (3.3e18) but not 2^48; 2^62 x 11008 does not
  // even fit int64.
  for (const std::string rows : {"300000000000000", "4611686018427387904"}) {
    SCOPED_TRACE(rows);
    const std::string message = errorOf([&] { compileScript(broadcastTo(rows)); });
    EXPECT_NE(message.find("'big' in the script"), std::string::npos) << message;
    EXPECT_NE(message.find(rows + " x 11008 elements, more than 2^48"), std::string::npos)
        << message;
    // At the call that made it (issue 43's second hostile corpus: no line).
    EXPECT_NE(message.find(":5:11: error: "), std::string::npos) << message;

    const frontend::Script script = frontend::readScript(broadcastTo(rows), "test.py");
    ASSERT_TRUE(script.inputs.has_value());
    const runtime::Arguments inputs = frontend::makeInputs(*script.inputs, 1);
    const std::string reference =
        errorOf([&] { (void)runtime::runReference(script.fusion(), inputs); });
    EXPECT_NE(reference.find("more than 2^48"), std::string::npos) << reference;
    EXPECT_NE(reference.find("test.py:5:11: error: "), std::string::npos) << reference;
  }
}

TEST(SizeLimitsTest, ATensorOfExactly2To48ElementsCompiles) {
  // 2^48 / 11008 rows is not whole: 2^36 x 4096 = 2^48 exactly.
  std::string source = broadcastTo("68719476736");
  source.replace(source.find("11008]"), 5, "4096");
  source.replace(source.find("randn(11008"), 11, "randn(4096");
  const CompiledScript compiled = compileScript(source);
  EXPECT_FALSE(compiled.kernels.empty());
}

}  // namespace
}  // namespace fuserlab::codegen
