// CompileOptions: options set by name as the CLI's --set and --disable-pass
// give them, errors that list what is known, and the JSON the report embeds.
#include <gtest/gtest.h>

#include "core/compiler/compile_options.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

using compiler::CompileOptions;
using compiler::CompileSetting;
using compiler::compileSettings;
using segmenter::UpcastStrategy;

TEST(CompileOptionsTest, Defaults) {
  const CompileOptions options;
  EXPECT_EQ(options.bookend, BookendMode::Outputs);
  EXPECT_EQ(options.upcast, UpcastStrategy::Privatize);
  EXPECT_TRUE(options.dependentLaunch);
  EXPECT_TRUE(options.disabledPasses.empty());
  EXPECT_TRUE(options.passEnabled("mark_aliases_prepare"));
}

TEST(CompileOptionsTest, SetByName) {
  CompileOptions options;
  options.set("bookend", "inputs_and_outputs");
  EXPECT_EQ(options.bookend, BookendMode::InputsAndOutputs);
  options.set("bookend", "none");
  EXPECT_EQ(options.bookend, BookendMode::None);
  options.setFromAssignment("upcast=forward");
  EXPECT_EQ(options.upcast, UpcastStrategy::Forward);
  options.setFromAssignment(" bookend = outputs ");
  EXPECT_EQ(options.bookend, BookendMode::Outputs);
  options.setFromAssignment("dependent_launch=off");
  EXPECT_FALSE(options.dependentLaunch);
  ASSERT_NE(options.toJson().get("dependent_launch"), nullptr);
  EXPECT_FALSE(options.toJson().get("dependent_launch")->asBool());
  EXPECT_TRUE(options.graphLaunch);
  options.setFromAssignment("graph_launch=off");
  EXPECT_FALSE(options.graphLaunch);
  EXPECT_FALSE(options.toJson().get("graph_launch")->asBool());
  EXPECT_EQ(toString(BookendMode::InputsAndOutputs), "inputs_and_outputs");
  EXPECT_EQ(toString(UpcastStrategy::Privatize), "privatize");
}

TEST(CompileOptionsTest, UnknownOptionListsTheOptions) {
  CompileOptions options;
  expectUserError([&] { options.set("bokend", "outputs"); },
                  {"unknown option 'bokend'", "bookend, upcast, dependent_launch, graph_launch"});
  expectUserError([&] { options.setFromAssignment("vectorize=4"); },
                  {"'vectorize'", "bookend, upcast"});
}

TEST(CompileOptionsTest, UnknownValueListsTheValues) {
  CompileOptions options;
  expectUserError([&] { options.set("bookend", "inputs"); },
                  {"'inputs'", "bookend", "none, outputs, inputs_and_outputs"});
  expectUserError([&] { options.setFromAssignment("upcast=Forward"); },
                  {"'Forward'", "privatize, forward"});
  expectUserError([&] { options.set("dependent_launch", "yes"); },
                  {"'yes'", "dependent_launch", "on, off"});
  EXPECT_EQ(options.bookend, BookendMode::Outputs) << "a failed set changes nothing";
}

TEST(CompileOptionsTest, AssignmentNeedsNameAndValue) {
  CompileOptions options;
  expectUserError([&] { options.setFromAssignment("bookend"); },
                  {"expected NAME=VALUE", "'bookend'"});
  expectUserError([&] { options.setFromAssignment("=outputs"); }, {"expected NAME=VALUE"});
}

TEST(CompileOptionsTest, DisablePass) {
  CompileOptions options;
  options.disablePass("consecutive_cast");
  options.disablePass("consecutive_cast");
  EXPECT_FALSE(options.passEnabled("consecutive_cast"));
  EXPECT_TRUE(options.passEnabled("remove_empty"));
  EXPECT_EQ(options.disabledPasses, std::vector<std::string>{"consecutive_cast"});
  expectUserError([&] { options.disablePass("consecutive_casts"); },
                  {"unknown pass 'consecutive_casts'",
                   "remove_empty, consecutive_cast, upcast_after_reshape, online_logsumexp, "
                   "gather_through_pointwise, propagate_shardings, "
                   "decompose_reshardings, reorder_sharded_axis, "
                   "finalize_multidevice_domains, mark_aliases_prepare, "
                   "allocation_order_propagation"});
}

TEST(CompileOptionsTest, ToJson) {
  CompileOptions options;
  options.set("bookend", "inputs_and_outputs");
  options.disablePass("remove_empty");
  EXPECT_EQ(options.toJson().dump(-1),
            R"({"bookend":"inputs_and_outputs","upcast":"privatize","dependent_launch":true,)"
            R"("graph_launch":true,"refine_reshaped_reductions":true,)"
            R"("disabled_passes":["remove_empty"]})");
}

// The one name table writes every setting back as an assignment that sets
// it again (the tuning worker's argv is built from these).
TEST(CompileOptionsTest, AssignmentsReadBackGiveTheSameSettings) {
  const CompileOptions defaults;
  EXPECT_EQ(defaults.assignments(),
            (std::vector<std::string>{"bookend=outputs", "upcast=privatize", "dependent_launch=on",
                                      "graph_launch=on", "refine_reshaped_reductions=on"}));
  for (const CompileSetting& setting : compileSettings()) {
    for (std::string_view value : setting.values) {
      CompileOptions options;
      options.set(setting.name, value);
      CompileOptions back;
      back.bookend = BookendMode::None;  // differs from every default
      back.upcast = UpcastStrategy::Forward;
      back.dependentLaunch = !options.dependentLaunch;
      back.graphLaunch = !options.graphLaunch;
      back.refineReshapedReductions = !options.refineReshapedReductions;
      for (const std::string& assignment : options.assignments()) {
        back.setFromAssignment(assignment);
      }
      EXPECT_EQ(back.toJson().dump(-1), options.toJson().dump(-1)) << setting.name << "=" << value;
    }
  }
}

}  // namespace
}  // namespace fuserlab::passes::test
