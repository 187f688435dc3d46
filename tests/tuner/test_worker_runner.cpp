// WorkerRunner's isolation without a GPU: stand-in workers (shell scripts
// speaking the protocol) that answer, crash or hang. A crash or a hang is
// the variant's failure, and the next variant gets a fresh worker.
#include <gtest/gtest.h>

#include "tests/tuner/tuner_fixture.h"
#include "tuner/worker.h"

namespace fuserlab::tuner {
namespace {

constexpr const char* kHello = "echo '{\"ready\": true, \"device\": \"fake\"}'; ";

std::vector<std::string> shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

TEST(WorkerRunnerTest, MeasurementsComeBackAsStatistics) {
  ExampleTarget e = exampleTarget("silu_mul.py", "256x1024:bf16,256x1024:bf16");
  WorkerRunner runner(shell(std::string(kHello) +
                            "while read line; do echo '{\"variant\": 0, \"samples\": "
                            "[100, 110, 90, 105, 95], \"redone\": 1}'; done"));
  const VariantOutcome o = runner.run(*e.target, e.space.variants[0]);
  ASSERT_TRUE(o.ok()) << o.error;
  EXPECT_DOUBLE_EQ(o.stats->medianNs, 100);
  EXPECT_EQ(o.stats->samples, 5);
  EXPECT_EQ(o.redoneSamples, 1);
  EXPECT_TRUE(runner.run(*e.target, e.space.variants[1]).ok());
  EXPECT_EQ(runner.workersStarted(), 1);
}

// The greeting's copy bandwidth (the bandwidth floor's) and each reply's
// check reach the tuner; a variant rejected by the GPU comparison keeps the
// check that rejected it.
TEST(WorkerRunnerTest, CopyBandwidthAndChecksComeBack) {
  ExampleTarget e = exampleTarget("silu_mul.py", "256x1024:bf16,256x1024:bf16");
  WorkerRunner runner(
      shell("echo '{\"ready\": true, \"device\": \"fake\", \"copy_bytes_per_s\": 3.5e12}'; "
            "read line; echo '{\"variant\": 0, \"samples\": [100], \"check\": \"cpu_reference\"}'; "
            "read line; echo '{\"variant\": 1, \"samples\": [90], \"check\": "
            "\"default_gpu_outputs\"}'; "
            "read line; echo '{\"variant\": 2, \"error\": \"wrong results: T4: 1 of 9 elements "
            "differ from the default variant\", \"fatal\": false, \"check\": "
            "\"default_gpu_outputs\"}'; cat > /dev/null"));
  EXPECT_FALSE(runner.copyBytesPerSecond().has_value());  // not started yet
  const VariantOutcome first = runner.run(*e.target, e.space.variants[0]);
  ASSERT_TRUE(first.ok()) << first.error;
  EXPECT_EQ(first.check, kCheckCpuReference);
  ASSERT_TRUE(runner.copyBytesPerSecond().has_value());
  EXPECT_DOUBLE_EQ(*runner.copyBytesPerSecond(), 3.5e12);
  const VariantOutcome second = runner.run(*e.target, e.space.variants[1]);
  ASSERT_TRUE(second.ok()) << second.error;
  EXPECT_EQ(second.check, kCheckDefaultOutputs);
  const VariantOutcome wrong = runner.run(*e.target, e.space.variants[2]);
  EXPECT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.check, kCheckDefaultOutputs);
  EXPECT_NE(wrong.error.find("default variant"), std::string::npos) << wrong.error;
}

TEST(WorkerRunnerTest, CrashingWorkerFailsTheVariantAndIsReplaced) {
  ExampleTarget e = exampleTarget("silu_mul.py", "256x1024:bf16,256x1024:bf16");
  WorkerRunner runner(shell(std::string(kHello) + "read line; kill -SEGV $$"));
  const VariantOutcome first = runner.run(*e.target, e.space.variants[1]);
  EXPECT_FALSE(first.ok());
  EXPECT_NE(first.error.find("signal 11"), std::string::npos) << first.error;
  const VariantOutcome second = runner.run(*e.target, e.space.variants[2]);
  EXPECT_FALSE(second.ok());
  EXPECT_EQ(runner.workersStarted(), 2);
}

TEST(WorkerRunnerTest, FatalReplyAndHangAndSetupFailure) {
  ExampleTarget e = exampleTarget("silu_mul.py", "256x1024:bf16,256x1024:bf16");
  WorkerRunner fatal(shell(std::string(kHello) +
                           "read line; echo '{\"variant\": 1, \"error\": \"CUDA error: "
                           "an illegal memory access\", \"fatal\": true}'"));
  const VariantOutcome f = fatal.run(*e.target, e.space.variants[1]);
  EXPECT_EQ(f.error, "CUDA error: an illegal memory access");
  fatal.run(*e.target, e.space.variants[1]);
  EXPECT_EQ(fatal.workersStarted(), 2);

  WorkerRunner hang(shell(std::string(kHello) + "read line; sleep 30"), 1.0);
  const VariantOutcome h = hang.run(*e.target, e.space.variants[1]);
  EXPECT_NE(h.error.find("timed out"), std::string::npos) << h.error;

  WorkerRunner broken(shell("echo '{\"fatal\": \"no GPU\"}'"));
  const VariantOutcome b = broken.run(*e.target, e.space.variants[0]);
  EXPECT_NE(b.error.find("no GPU"), std::string::npos) << b.error;
}

}  // namespace
}  // namespace fuserlab::tuner
