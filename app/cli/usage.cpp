#include "app/cli/usage.h"

#include <map>
#include <sstream>

namespace fuserlab::cli {

const char* const kUsage = R"(usage: fuserlab-cli COMMAND [ARGS]

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
                [--inputs SPEC] [--fusion NAME] [--dump LIST] [--json PATH|-]
                [--db FILE: params from a heuristics database]
                [--segment N --repro OUT.py | --repro-dir DIR]: segments as
                standalone scripts with their own inputs blocks
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
                [--devices 0,1|all] [--time-limit SECONDS] [--shard K/N]
                [--no-early-stop] (stop at the bandwidth floor: on by default)
                [--check default|reference] (variants against the default's
                GPU outputs, or each against the CPU reference)
                [--portable] (entries answer on GPUs of the same architecture)
                or a campaign: tune --plan PLAN|--from-record FILE --db FILE
                (--jsonl FILE for --db FILE: results as JSON lines; db import reads them)
  db SUB        the heuristics database: list, show, export, import, merge,
                verify, prune, put, mark-portable  (fuserlab-cli db help)

SPEC: one entry per fusion input, e.g. 128x49152:bf16,10:bf16,0.5
      (dtypes: bool, i32, i64, f16, bf16, f32, f64; a bare number is a scalar)
FUSERLAB_DB=user.db:system.db: the heuristics databases when --db is not given
      (--db repeated is a search path too; FUSERLAB_HEURISTICS_DB is the old name)
FUSERLAB_DB_RECORD=FILE: run/bench --backend cuda append the segments that ran
      on the built-in heuristic to FILE (as --record FILE); tune --from-record FILE
output files (--json PATH, --out DIR, -o OUT, --output, --save-*): a write that
      fails (a full disk) is exit 2; a named pipe is written only when a reader
      already has it open (no waiting: "no reader on the named pipe")
exit codes: 0 success, 1 a result check failed, 2 a user error, 3 an internal error
)";

namespace {

const std::map<std::string, std::string>& examples() {
  static const std::map<std::string, std::string> kExamples = {
      {"run", "fuserlab-cli run resources/examples/silu_mul.py --backend cuda --check"},
      {"bench", "fuserlab-cli bench resources/examples/seed001_nanogpt_layer_norm.py"},
      {"inspect", "fuserlab-cli inspect resources/examples/seed001_nanogpt_layer_norm.py --json -"},
      {"compile",
       "fuserlab-cli compile resources/examples/seed001_nanogpt_layer_norm.py --device h100 "
       "--out kernels"},
      {"graph",
       "fuserlab-cli graph resources/examples/seed001_nanogpt_layer_norm.py --segmented "
       "--format svg -o graph.svg"},
      {"devices", "fuserlab-cli devices --json -"},
      {"tune",
       "fuserlab-cli tune resources/examples/seed001_nanogpt_layer_norm.py --db tuned.db "
       "--dry-run"},
  };
  return kExamples;
}

}  // namespace

std::optional<std::string> commandHelp(const std::string& command) {
  // An entry starts with two spaces and the command's name at column 2 and
  // runs until the next such line or a blank line; the notes every command
  // shares follow the list, from "SPEC:" on.
  std::istringstream lines(kUsage);
  std::string line, entry;
  bool inEntry = false;
  while (std::getline(lines, line)) {
    if (line.empty()) {
      inEntry = false;
      continue;
    }
    if (line.size() > 2 && line.compare(0, 2, "  ") == 0 && line[2] != ' ') {
      inEntry =
          line.compare(2, command.size() + 1, command + " ") == 0 || line.substr(2) == command;
    }
    if (inEntry) entry += line + "\n";
  }
  const std::string usage(kUsage);
  const size_t spec = usage.find("\nSPEC:");
  const std::string notes = spec == std::string::npos ? std::string() : usage.substr(spec + 1);
  if (entry.empty()) return std::nullopt;
  std::string help = "usage: fuserlab-cli " + command + " ...\n\n" + entry + "\n" + notes;
  if (const auto it = examples().find(command); it != examples().end()) {
    help += "\nexample:\n  " + it->second + "\n";
  }
  return help;
}

}  // namespace fuserlab::cli
