// WorkerCommand: the tuning worker's argument list, written by the tuner for
// both front ends and read back by the worker. Every CompileOptions setting
// at every value, and disabled passes, survive the trip; bad arguments are
// user errors that say what was wrong.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/ir/error.h"
#include "core/passes/pipeline.h"
#include "tuner/worker_command.h"

namespace fuserlab::tuner {
namespace {

WorkerCommand roundTrip(const WorkerCommand& command) {
  return parseWorkerArguments(workerArguments(command));
}

std::string messageOf(const std::vector<std::string>& args) {
  try {
    parseWorkerArguments(args);
  } catch (const UserError& error) {
    return error.message();
  }
  return "(no error)";
}

TEST(WorkerCommandTest, EverySettingAtEveryValueRoundTrips) {
  const auto settings = compiler::compileSettings();
  ASSERT_EQ(settings.size(), compiler::CompileOptions().assignments().size());
  for (const compiler::CompileSetting& setting : settings) {
    for (std::string_view value : setting.values) {
      WorkerCommand command;
      command.script = "s.py";
      command.options.set(setting.name, value);
      const WorkerCommand back = roundTrip(command);
      EXPECT_EQ(back.options.toJson().dump(-1), command.options.toJson().dump(-1))
          << setting.name << "=" << value;
    }
  }
}

// The launch switches the workbench's worker used to lose (issue 44), set
// together with the other settings and disabled passes.
TEST(WorkerCommandTest, NonDefaultOptionsAndEveryFieldRoundTrip) {
  WorkerCommand command;
  command.script = "/tmp/some script.py";
  command.fusion = "second";
  command.inputs = "8x16:bf16,s";
  command.segment = 3;
  command.device = 2;
  command.options.setFromAssignment("bookend=inputs_and_outputs");
  command.options.setFromAssignment("upcast=forward");
  command.options.setFromAssignment("dependent_launch=off");
  command.options.setFromAssignment("graph_launch=off");
  for (const auto& pass : passes::allPasses()) command.options.disablePass(pass->name());
  command.compareWithDefault = false;
  const WorkerCommand back = roundTrip(command);
  EXPECT_FALSE(back.compareWithDefault);
  EXPECT_EQ(back.script, command.script);
  EXPECT_EQ(back.fusion, "second");
  EXPECT_EQ(back.inputs, "8x16:bf16,s");
  EXPECT_EQ(back.segment, 3);
  EXPECT_EQ(back.device, 2);
  EXPECT_FALSE(back.options.dependentLaunch);
  EXPECT_FALSE(back.options.graphLaunch);
  EXPECT_EQ(back.options.upcast, segmenter::UpcastStrategy::Forward);
  EXPECT_EQ(back.options.bookend, passes::BookendMode::InputsAndOutputs);
  EXPECT_EQ(back.options.disabledPasses, command.options.disabledPasses);
  EXPECT_EQ(back.options.toJson().dump(-1), command.options.toJson().dump(-1));
}

TEST(WorkerCommandTest, DefaultsRoundTripWithoutOptionalFields) {
  WorkerCommand command;
  command.script = "s.py";
  const std::vector<std::string> args = workerArguments(command);
  EXPECT_EQ(std::count(args.begin(), args.end(), "--fusion"), 0);
  EXPECT_EQ(std::count(args.begin(), args.end(), "--inputs"), 0);
  EXPECT_EQ(std::count(args.begin(), args.end(), "--check"), 0);
  const WorkerCommand back = parseWorkerArguments(args);
  EXPECT_EQ(back.fusion, "");
  EXPECT_EQ(back.inputs, "");
  EXPECT_EQ(back.device, 0);
  EXPECT_TRUE(back.compareWithDefault);
  EXPECT_EQ(back.options.toJson().dump(-1), compiler::CompileOptions().toJson().dump(-1));
}

TEST(WorkerCommandTest, BadArgumentsAreUserErrors) {
  EXPECT_NE(messageOf({"s.py", "--bogus", "1"}).find("unknown option --bogus"), std::string::npos);
  EXPECT_NE(messageOf({"s.py", "--segment"}).find("--segment needs a value"), std::string::npos);
  EXPECT_NE(messageOf({"a.py", "b.py"}).find("one script file, found 'b.py' too"),
            std::string::npos);
  EXPECT_NE(messageOf({"--segment", "1"}).find("no script file"), std::string::npos);
  EXPECT_NE(messageOf({"s.py", "--device", "h100"}).find("cuda:N; found 'h100'"),
            std::string::npos);
  EXPECT_NE(messageOf({"s.py", "--set", "graph_launch=maybe"}).find("'maybe'"), std::string::npos);
  EXPECT_NE(messageOf({"s.py", "--disable-pass", "no_such_pass"}).find("unknown pass"),
            std::string::npos);
  EXPECT_NE(messageOf({"s.py", "--check", "gpu"}).find("--check is default"), std::string::npos);
  EXPECT_EQ(parseCudaDevice("cuda", "--device"), 0);
  EXPECT_EQ(parseCudaDevice("cuda:7", "--device"), 7);
}

}  // namespace
}  // namespace fuserlab::tuner
