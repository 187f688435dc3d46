// inspect takes nvFuser's dump names (issue 47 item 3), from --dump and from
// NVFUSER_DUMP: those FuserLab has print their text, the others say where
// FuserLab shows it or why it has no counterpart, an unknown name lists the
// accepted ones.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/cli/cli_runner.h"

namespace fuserlab::cli {
namespace {

const std::string kSeed000 = "resources/examples/seed000_forwarding_miss.py";

TEST(CliNvfuserDumpsTest, EachDumpFuserLabHasPrintsItsText) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"fusion_ir", "Inputs:"},
      {"fusion_ir_original", "Inputs:"},
      {"fusion_ir_preseg", "Inputs:"},
      {"fusion_ir_presched", "===== segment 1 (expr_eval) ====="},
      {"segmented_fusion", "Segmented_Fusion{"},
      {"segmenter_logging", "merge"},
      {"pre_segmenter_logging", "===== pre-segmentation passes ====="},
      {"scheduler_params", "inner_persistent"},
      {"scheduler_verbose", "  not pointwise: "},
      {"cuda_kernel", "__global__"},
      {"cuda_full", "namespace fl"},
      {"launch_param", "inner_persistent_seg0: grid ("},
      {"index_type", "inner_persistent_seg0: int32"},
      {"kernel_args", "inner_persistent_seg0: tensor in0;"},
      {"python_definition", "def nvfuser_fusion_id0(fd : FusionDefinition)"},
      {"python_definition_segments", "def nvfuser_fusion_segment1(fd : FusionDefinition)"},
      {"fusion_ir_graph", "digraph"},
      {"draw_segmented_fusion", "cluster"},
  };
  for (const auto& [dump, expected] : cases) {
    CliResult r = runCli("inspect " + source(kSeed000) + " --dump " + dump);
    EXPECT_EQ(r.exitCode, 0) << dump << "\n" << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << dump << "\n" << r.output;
  }
}

TEST(CliNvfuserDumpsTest, NamesWithoutACounterpartSaySo) {
  CliResult r = runCli("inspect " + source(kSeed000) + " --dump ptx,ptxas_verbose,kernel_ir");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("dump ptx: no FuserLab counterpart: FuserLab compiles with NVRTC"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("dump ptxas_verbose: not printed by inspect: fuserlab-cli compile"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("dump kernel_ir: no FuserLab counterpart"), std::string::npos)
      << r.output;
}

TEST(CliNvfuserDumpsTest, AnUnknownNameListsTheAcceptedOnes) {
  CliResult r = runCli("inspect " + source(kSeed000) + " --dump segmented_fusion,nosuch");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.output.find("--dump: 'nosuch' is not one of nvFuser's dump names; accepted: "
                          "bank_conflict, buffer_reuse_verbose,"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("python_definition_segments"), std::string::npos) << r.output;
}

TEST(CliNvfuserDumpsTest, TheEnvironmentVariableIsReadAsNvFuserWritesIt) {
  // nvFuser's form: comma-separated, a name may carry (arguments).
  ::setenv("NVFUSER_DUMP", "segmented_fusion,cuda_to_file(ignored, too),launch_param", 1);
  CliResult r = runCli("inspect " + source(kSeed000) + " --dump fusion_ir");
  ::setenv("NVFUSER_DUMP", "nosuch", 1);
  CliResult bad = runCli("inspect " + source(kSeed000));
  ::unsetenv("NVFUSER_DUMP");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("Segmented_Fusion{"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("inner_persistent_seg0: wrote __tmp_inner_persistent_seg0.cu"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("inner_persistent_seg0: grid ("), std::string::npos) << r.output;
  std::remove("__tmp_inner_persistent_seg0.cu");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.output.find("NVFUSER_DUMP: 'nosuch' is not one of nvFuser's dump names"),
            std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace fuserlab::cli
