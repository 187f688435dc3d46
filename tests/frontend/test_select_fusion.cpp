// selectFusion: the definition a name picks (the executed one without a
// name) and the inputs block that belongs to it; an unknown name is an error
// that lists the definitions.
#include <gtest/gtest.h>

#include <string>

#include "core/frontend/script.h"
#include "core/frontend/select_fusion.h"
#include "core/ir/error.h"

namespace fuserlab::frontend {
namespace {

// Two definitions; only the second is built and has an inputs block.
constexpr const char* kTwoDefinitions =
    "from nvfuser import FusionDefinition, DataType\n"
    "def unused(fd : FusionDefinition) -> None :\n"
    "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
    "    T1 = fd.ops.neg(T0)\n"
    "    fd.add_output(T1)\n"
    "def used(fd : FusionDefinition) -> None :\n"
    "    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
    "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
    "    T2 = fd.ops.add(T0, T1)\n"
    "    fd.add_output(T2)\n"
    "with FusionDefinition() as fd:\n"
    "    used(fd)\n"
    "inputs = [\n"
    "    torch.randn(8, device='cuda:0'),\n"
    "    torch.randn(8, device='cuda:0'),\n"
    "]\n"
    "fd.execute(inputs)\n";

TEST(SelectFusionTest, NoNamePicksTheExecutedDefinitionAndItsBlock) {
  const Script script = readScript(kTwoDefinitions, "two.py");
  const SelectedFusion selected = selectFusion(script, "");
  EXPECT_EQ(selected.index, 1u);
  EXPECT_EQ(selected.name, "used");
  EXPECT_EQ(selected.fusion, script.definitions[1].fusion.get());
  ASSERT_TRUE(selected.inputsBlock.has_value());
  EXPECT_EQ(selected.inputsBlock->size(), 2u);
}

TEST(SelectFusionTest, ANamePicksThatDefinitionWithoutAnotherOnesBlock) {
  const Script script = readScript(kTwoDefinitions, "two.py");
  const SelectedFusion selected = selectFusion(script, "unused");
  EXPECT_EQ(selected.index, 0u);
  EXPECT_EQ(selected.name, "unused");
  EXPECT_EQ(selected.fusion, script.definitions[0].fusion.get());
  EXPECT_FALSE(selected.inputsBlock.has_value());
  EXPECT_EQ(selectFusion(script, "used").index, 1u);
}

TEST(SelectFusionTest, AnUnknownNameListsTheDefinitions) {
  const Script script = readScript(kTwoDefinitions, "two.py");
  try {
    selectFusion(script, "nope");
    ADD_FAILURE() << "an unknown name picked a definition";
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find("two.py has no fusion definition named 'nope'; it "
                                   "defines: unused, used"),
              std::string::npos)
        << error.message();
  }
}

// Issue 43, the second hostile corpus: an empty block (`fd.execute([])`)
// has no entry to point at, so a count mismatch named no line; the block
// keeps where its list is.
TEST(SelectFusionTest, TheBlockKeepsWhereItsListIs) {
  std::string source = kTwoDefinitions;
  source += "fd.execute([])\n";
  const Script script = readScript(source, "two.py");
  const SelectedFusion selected = selectFusion(script, "");
  ASSERT_TRUE(selected.inputsBlock.has_value());
  EXPECT_TRUE(selected.inputsBlock->empty());
  EXPECT_EQ(selected.inputsBlockLocation.line, 18);
  EXPECT_EQ(selected.inputsBlockLocation.column, 12);
  const SelectedFusion withEntries = selectFusion(readScript(kTwoDefinitions, "two.py"), "");
  EXPECT_EQ(withEntries.inputsBlockLocation.line, 17);
}

}  // namespace
}  // namespace fuserlab::frontend
