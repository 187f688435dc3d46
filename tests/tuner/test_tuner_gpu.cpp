// Real sweeps on a GPU (skipped without one): a pointwise and a persistent
// example tuned into a database, which `inspect --db --device cuda:0` then
// reports as database_exact; a variant made to fault (the test switch
// FUSERLAB_TUNER_FAULT_VARIANT) recorded as failed while the sweep goes on;
// and both kernels of a two-kernel fusion tuned.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/cuda/cuda_device.h"
#include "db/heuristics_database.h"
#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

class TunerGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (runtime::cudaDeviceCount() == 0) GTEST_SKIP() << runtime::cudaUnavailableReason();
    db_ = (std::filesystem::temp_directory_path() /
           ("fuserlab_tune_gpu_" + std::to_string(::getpid()) + ".db"))
              .string();
    std::filesystem::remove(db_);
  }
  void TearDown() override {
    if (!db_.empty()) std::filesystem::remove(db_);
    ::unsetenv("FUSERLAB_TUNER_FAULT_VARIANT");
  }
  std::string db_;
};

TEST_F(TunerGpuTest, SweepsStoreTheWinnerAndInspectReportsDatabaseExact) {
  for (const char* example : {"silu_mul.py", "rms_norm.py"}) {
    SCOPED_TRACE(example);
    const std::string file = source(std::string("resources/examples/") + example);
    const CliResult tune =
        runCli("tune " + file + " --db " + db_ + " --strategy random --budget 6");
    ASSERT_EQ(tune.exitCode, 0) << tune.output;
    const CliResult inspect = runCli("inspect " + file + " --db " + db_ + " --device cuda:0");
    ASSERT_EQ(inspect.exitCode, 0) << inspect.output;
    EXPECT_NE(inspect.output.find("database_exact"), std::string::npos) << inspect.output;
    // Re-running resumes: nothing new is measured.
    const CliResult again =
        runCli("tune " + file + " --db " + db_ + " --strategy random --budget 6");
    ASSERT_EQ(again.exitCode, 0) << again.output;
    EXPECT_NE(again.output.find(" 0 measured, 6 resumed"), std::string::npos) << again.output;
  }
}

TEST_F(TunerGpuTest, FaultingVariantIsRecordedFailedAndTheSweepGoesOn) {
  ::setenv("FUSERLAB_TUNER_FAULT_VARIANT", "2", 1);
  const std::string file = source("resources/examples/silu_mul.py");
  const CliResult tune = runCli("tune " + file + " --db " + db_ + " --budget 5");
  ASSERT_EQ(tune.exitCode, 0) << tune.output;
  EXPECT_NE(tune.output.find("2 worker(s)"), std::string::npos) << tune.output;
  db::HeuristicsDatabase database(db_, db::HeuristicsDatabase::Access::Read);
  const auto entries = database.entries(true);
  ASSERT_EQ(entries.size(), 1u);
  int failed = 0, measured = 0;
  for (const auto& m : entries[0].variants) {
    if (m.error) {
      ++failed;
      EXPECT_NE(m.error->find("CUDA error"), std::string::npos) << *m.error;
    }
    measured += m.measured() ? 1 : 0;
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(measured, 4);
}

// A fusion of two kernels, each segment tuned: the worker's timed runs
// replay as one CUDA graph, whose kernels all carry the cuGraphLaunch's
// correlation id in CUPTI's records. Every variant of both segments is
// measured, none fails (the CUPTI timer once kept one kernel per id, the
// graph's last, and the first segment's variants failed with "CUPTI
// reported no pointwise_seg0 kernel").
TEST_F(TunerGpuTest, BothKernelsOfAGraphReplayAreTuned) {
  const std::string file = source("resources/examples/index_select_gather.py");
  const CliResult tune = runCli("tune " + file + " --db " + db_ + " --strategy random --budget 3");
  ASSERT_EQ(tune.exitCode, 0) << tune.output;
  db::HeuristicsDatabase database(db_, db::HeuristicsDatabase::Access::Read);
  const auto entries = database.entries(true);
  ASSERT_EQ(entries.size(), 2u) << tune.output;
  for (const auto& entry : entries) {
    int measured = 0;
    for (const auto& m : entry.variants) {
      EXPECT_FALSE(m.error.has_value()) << *m.error;
      measured += m.measured() ? 1 : 0;
    }
    EXPECT_GE(measured, 2) << tune.output;
  }
}

}  // namespace
}  // namespace fuserlab::cli
