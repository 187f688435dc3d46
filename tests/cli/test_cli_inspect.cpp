// fuserlab-cli inspect with the compiler: the acceptance cases of seeds 000
// and 001 (segments, schedulers, params, kernel counts), option switches, and
// every bundled example on every built-in device.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/report/json.h"
#include "core/scheduler/device_spec.h"
#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

using report::Json;

Json inspectJson(const std::string& args) {
  CliResult r = runCli("inspect " + args + " --json -");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  // With --json - stdout holds only the JSON; the summary goes to stderr.
  return Json::parse(r.stdoutText);
}

std::vector<const Json*> segmentsWith(const Json& report, const std::string& scheduler) {
  std::vector<const Json*> found;
  for (const Json& segment : report.get("segments")->items()) {
    if (segment.get("scheduler")->asString() == scheduler) {
      found.push_back(&segment);
    }
  }
  return found;
}

int64_t kernelCount(const Json& report) { return report.get("kernel_count")->asInt(); }

// S = 65536: a bf16 row (128 KiB) fits the H100's persistent budget, a float
// row (256 KiB) does not.
const std::string kSeed000 = source("resources/examples/seed000_forwarding_miss.py") +
                             " --device h100 --inputs 128x65536:bf16,10:bf16";

TEST(InspectCompileTest, TextSaysWhyTheHeuristicChoseItsShape) {
  // The reasons the report carries as properties, in the text too.
  CliResult masked = runCli("inspect " + source("tests/perf/suite/masked_softmax_8192x2050.py") +
                            " --device h100");
  EXPECT_EQ(masked.exitCode, 0) << masked.output;
  EXPECT_NE(masked.output.find("    shifted rows: rows of 2050 elements, not a multiple of 8: "
                               "each row's chunks start at its first aligned element, in "
                               "chunks of 8 (the kernel keeps its buffers)"),
            std::string::npos)
      << masked.output;
  EXPECT_NE(masked.output.find("    vectorize limited by: "), std::string::npos) << masked.output;
  CliResult colSum =
      runCli("inspect " + source("tests/perf/suite/col_sum_8192x4096.py") + " --device h100");
  EXPECT_EQ(colSum.exitCode, 0) << colSum.output;
  EXPECT_NE(colSum.output.find("    cluster reduction: clusters of 8 (32 column groups x 8 = 256 "
                               "blocks of 256 threads, 256 to 512 threads per SM)"),
            std::string::npos)
      << colSum.output;
  EXPECT_EQ(colSum.output.find("    shifted rows:"), std::string::npos) << colSum.output;
}

TEST(InspectCompileTest, Seed000PrivatizeKeepsBf16PersistentBuffer) {
  Json report = inspectJson(kSeed000 + " --set upcast=privatize");
  EXPECT_EQ(kernelCount(report), 1);
  auto persistent = segmentsWith(report, "inner_persistent");
  ASSERT_EQ(persistent.size(), 1u) << report.dump();
  const Json& properties = *persistent[0]->get("properties");
  EXPECT_TRUE(properties.get("project_persistent_buffers")->asBool());
  EXPECT_EQ(properties.get("projected_persistent_buffer_bytes")->asInt(), 2 * 65536);
  // The segment_set's segment launches no kernel.
  int kernelFree = 0;
  for (const Json& segment : report.get("segments")->items()) {
    kernelFree += segment.get("launches_kernel")->asBool() ? 0 : 1;
  }
  EXPECT_GE(kernelFree, 1);
}

TEST(InspectCompileTest, Seed000ForwardLosesThePersistentScheduler) {
  Json report = inspectJson(kSeed000 + " --set upcast=forward");
  EXPECT_TRUE(segmentsWith(report, "inner_persistent").empty()) << report.dump();
}

const std::string kSeed001 =
    source("resources/examples/seed001_nanogpt_layer_norm.py") + " --device h100";

TEST(InspectCompileTest, Seed001DefaultIsOneVectorizedPersistentKernel) {
  Json report = inspectJson(kSeed001);
  EXPECT_EQ(kernelCount(report), 1) << report.dump();
  auto persistent = segmentsWith(report, "inner_persistent");
  ASSERT_EQ(persistent.size(), 1u);
  EXPECT_EQ(persistent[0]->get("params")->get("vectorization_factor")->asInt(), 8);
}

TEST(InspectCompileTest, Seed001BookendInputsKeepsVectorization) {
  Json report = inspectJson(kSeed001 + " --set bookend=inputs_and_outputs");
  EXPECT_EQ(kernelCount(report), 1) << report.dump();
  auto persistent = segmentsWith(report, "inner_persistent");
  ASSERT_EQ(persistent.size(), 1u);
  EXPECT_EQ(persistent[0]->get("params")->get("vectorization_factor")->asInt(), 8);
  EXPECT_GT(report.get("segments")->items().size(), 1u)
      << "bookended meta ops should sit in kernel-free segments";
  EXPECT_EQ(report.get("host_step_count")->asInt(), report.get("segment_count")->asInt() - 1);
  // The default mode has no host steps: the trade-off the report states.
  EXPECT_EQ(inspectJson(kSeed001).get("host_step_count")->asInt(), 0);
}

TEST(InspectCompileTest, MetaOpsOnlyLaunchNoKernel) {
  Json report = inspectJson(source("tests/cli/scripts/meta_ops_only.py"));
  EXPECT_EQ(kernelCount(report), 0) << report.dump();
}

TEST(InspectCompileTest, DumpsReadLikeNvFuser) {
  CliResult r = runCli("inspect " + kSeed000 +
                       " --dump segmented_fusion,scheduler_params,"
                       "segmenter_logging,fusion_ir_preseg");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("Segmented_Fusion{"), std::string::npos);
  EXPECT_NE(r.output.find("groups:"), std::string::npos);
  EXPECT_NE(r.output.find("edges:"), std::string::npos);
  EXPECT_NE(r.output.find("inner_persistent"), std::string::npos);
}

TEST(InspectCompileTest, BadOptionsAreUserErrors) {
  const std::string file = source("resources/examples/softmax.py");
  EXPECT_EQ(runCli("inspect " + file + " --set upcast=sideways").exitCode, 2);
  EXPECT_EQ(runCli("inspect " + file + " --set nosuch=1").exitCode, 2);
  EXPECT_EQ(runCli("inspect " + file + " --disable-pass nosuch").exitCode, 2);
  CliResult device = runCli("inspect " + file + " --device tpu9000");
  EXPECT_EQ(device.exitCode, 2);
  EXPECT_NE(device.output.find("h100"), std::string::npos) << device.output;
  EXPECT_EQ(runCli("inspect " + file + " --dump nosuch").exitCode, 2);
}

class InspectEveryDeviceTest : public testing::TestWithParam<std::tuple<std::string, std::string>> {
};

TEST_P(InspectEveryDeviceTest, CompilesAndExplainsRefusals) {
  const auto& [example, device] = GetParam();
  CliResult r = runCli("inspect " + source("resources/examples/" + example) + " --device " +
                       device + " --json -");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  Json report = Json::parse(r.stdoutText);
  for (const Json& segment : report.get("segments")->items()) {
    for (const Json& rejection : segment.get("rejected")->items()) {
      EXPECT_GT(rejection.get("reason")->asString().size(), 10u)
          << example << " on " << device << ": a refusal without a reason";
    }
  }
}

std::vector<std::tuple<std::string, std::string>> examplesByDevice() {
  std::vector<std::tuple<std::string, std::string>> cases;
  for (const std::string& example : bundledExamples()) {
    for (const auto& device : scheduler::builtinDevices()) {
      cases.emplace_back(example, device.key);
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Examples, InspectEveryDeviceTest, testing::ValuesIn(examplesByDevice()),
                         [](const auto& test) {
                           std::string name =
                               std::get<0>(test.param) + "_" + std::get<1>(test.param);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace fuserlab::cli

namespace fuserlab::cli {
namespace {

// The report's data flow, which the graphs are drawn from: each segment's
// expr_flow parallels its exprs, and values lists every value with its
// dtype and shape.
TEST(CliInspectTest, ReportsExprFlowAndValues) {
  const Json report = inspectJson(source("resources/examples/seed000_forwarding_miss.py") +
                                  " --set upcast=forward");
  for (const Json& segment : report.get("segments")->items()) {
    ASSERT_NE(segment.get("expr_flow"), nullptr);
    ASSERT_EQ(segment.get("expr_flow")->items().size(), segment.get("exprs")->items().size());
  }
  const Json& first = report.get("segments")->items().front().get("expr_flow")->items().front();
  EXPECT_EQ(first.get("op")->asString(), "cast");
  EXPECT_EQ(first.get("inputs")->items().front().asString(), "T0");
  EXPECT_EQ(first.get("outputs")->items().front().asString(), "T1");
  ASSERT_NE(report.get("values"), nullptr);
  bool sawInput = false;
  for (const Json& value : report.get("values")->items()) {
    if (value.get("name")->asString() != "T0") continue;
    sawInput = true;
    EXPECT_EQ(value.get("dtype")->asString(), "BFloat16");
    EXPECT_TRUE(value.get("is_fusion_input")->asBool());
    EXPECT_EQ(value.get("shape")->items().size(), 2u);
    EXPECT_EQ(value.get("shape")->items()[1].asInt(), 65536);
  }
  EXPECT_TRUE(sawInput);
}

}  // namespace
}  // namespace fuserlab::cli
