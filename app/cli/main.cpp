// fuserlab-cli: FuserLab's command-line front end.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/command_run_ranks.h"
#include "app/cli/commands.h"
#include "core/ir/error.h"
#include "core/runtime/binding.h"

namespace {

constexpr const char* kUsage = R"(usage: fuserlab-cli COMMAND [ARGS]

commands:
  run FILE      run a FusionDefinition script on the CPU reference backend
                [--backend cpu|cuda] [--inputs SPEC] [--seed N] [--fusion NAME]
                [--save-inputs DIR] [--save-outputs DIR]
                [--check] [--device cuda:N] [--db FILE] (--backend cuda)
                [--ranks N]: a multi-device fusion on N ranks (cpu: threads;
                cuda: one process per GPU, NCCL); --check against the
                unsharded reference
  bench FILE    time the fusion on a GPU of this machine: median, p20 and p80
                of the GPU time (CUDA events, L2 flushed, warm-up), effective
                bandwidth over the measured copy bandwidth, host time per
                launch, compile times  [--inputs SPEC] [--fusion NAME]
                [--device cuda:N] [--db FILE] [--samples N (>= 20, default 50)]
                [--warmup N] [--json PATH|-] [--set NAME=VALUE] [--disable-pass NAME]
  inspect FILE  print the fusion's input signature and IR
                [--inputs SPEC] [--fusion NAME] [--dump fusion_ir] [--json PATH|-]
                [--db FILE: params from a heuristics database]
  compile FILE  generate each segment's CUDA kernel and compile it with NVRTC
                (no GPU needed)  [--inputs SPEC] [--fusion NAME] [--device NAME]
                [--set NAME=VALUE] [--disable-pass NAME] [--out DIR] [--db FILE]
  graph FILE    draw the fusion graph, or with --segmented a cluster per
                segment (--overview: one node per segment; --segment N: one
                segment's inside), as DOT, SVG or PNG (no GPU needed)
                --format dot|svg|png -o OUT  [--inputs SPEC] [--fusion NAME]
                [--device NAME] [--set NAME=VALUE] [--disable-pass NAME]
  devices       list the built-in devices (--device NAME) and this machine's
                GPUs (--device cuda:N)  [--json PATH|-]
  tune FILE     autotune segments' params on a GPU into a heuristics database
                --db FILE [--inputs SPEC | --sizes SPEC;SPEC...] [--segment N]
                [--strategy exhaustive|random|coordinate] [--budget N] [--seed N]
                [--margin PERCENT] [--dry-run] [--json PATH] [--device NAME|cuda:N]
  db SUB        the heuristics database: list, show, export, import, merge,
                verify, prune, put  (fuserlab-cli db help)

SPEC: one entry per fusion input, e.g. 128x49152:bf16,10:bf16,0.5
      (dtypes: bool, i32, i64, f16, bf16, f32, f64; a bare number is a scalar)
FUSERLAB_HEURISTICS_DB=FILE: the heuristics database when --db is not given
exit codes: 0 success, 1 a result check failed, 2 a user error, 3 an internal error
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::cout << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "run") return fuserlab::cli::runCommand(args);
    if (command == "inspect") return fuserlab::cli::inspectCommand(args);
    if (command == "devices") return fuserlab::cli::devicesCommand(args);
    if (command == "compile") return fuserlab::cli::compileCommand(args);
    if (command == "db") return fuserlab::cli::dbCommand(args);
    if (command == "tune") return fuserlab::cli::tuneCommand(args);
    if (command == "tune-worker") return fuserlab::cli::tuneWorkerCommand(args);
    if (command == "rank-worker") return fuserlab::cli::rankWorkerCommand(args);
    if (command == "graph") return fuserlab::cli::graphCommand(args);
    if (command == "bench") return fuserlab::cli::benchCommand(args);
    std::cerr << "fuserlab-cli: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const fuserlab::runtime::InputBindingError& error) {
    // Point at the inputs block entry the mismatching argument came from.
    const auto entry = fuserlab::cli::inputsBlockEntry(error.input(), error.inputName());
    std::cerr << "fuserlab-cli " << command << ": "
              << (entry ? fuserlab::formatWithLocation(error.message(), *entry)
                        : std::string(error.what()))
              << "\n";
    return 2;
  } catch (const fuserlab::UserError& error) {
    std::cerr << "fuserlab-cli " << command << ": " << error.what() << "\n";
    return 2;
  } catch (const fuserlab::InternalError& error) {
    std::cerr << "fuserlab-cli " << command << ": " << error.what() << "\n";
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "fuserlab-cli " << command
              << ": out of memory (are the input sizes what you meant?)\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "fuserlab-cli " << command << ": internal error: " << error.what()
              << " (this is a FuserLab bug, please report it)\n";
    return 3;
  }
}
