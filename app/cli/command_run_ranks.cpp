// fuserlab-cli run FILE --ranks N [--backend cpu|cuda] [--check] ...
// runs a multi-device fusion on N ranks: with the cpu backend as N threads
// of this process (the CPU reference computes each rank's segments, a
// ThreadCommunicator moves the data); with the cuda backend as N worker
// processes, one per GPU, that compute on their GPU and communicate through
// NCCL (the NCCL id made here and handed to them), each writing its local
// outputs for this process to gather. --check compares the gathered outputs
// with the unsharded CPU reference on the same inputs.
//
// The hidden `rank-worker` command is one such process.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "app/cli/command_run_ranks.h"
#include "core/cuda/cuda_device.h"
#include "core/frontend/input_tensors.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "core/reference/reference_run.h"
#include "core/runtime/multidevice_run.h"
#include "core/runtime/nccl_communicator.h"
#include "core/tensor/npy.h"

extern char** environ;

namespace fuserlab::cli {
namespace {

int64_t parseRanks(const std::string& text) { return ir::parseInteger(text, "--ranks", 1, 64); }

void printProgram(const runtime::MultiDeviceProgram& program) {
  const report::CompileReport& report = program.compiled().report;
  int compute = 0, communication = 0;
  for (const report::SegmentReport& segment : report.segments) {
    (segment.scheduler == "communication" ? communication : compute) += 1;
  }
  std::printf(
      "multi-device program for %lld ranks: %d segments (%d compute, "
      "%d communication)\n",
      static_cast<long long>(program.ranks()), compute + communication, compute, communication);
  for (const report::SegmentReport& segment : report.segments) {
    if (segment.scheduler != "communication") continue;
    const report::Json* collective = segment.properties.get("collective");
    const report::Json* in = segment.properties.get("input_sharding");
    const report::Json* out = segment.properties.get("output_sharding");
    std::printf("  segment %d: %s (%s -> %s)\n", segment.id,
                collective ? collective->asString().c_str() : "?",
                in ? in->asString().c_str() : "?", out ? out->asString().c_str() : "?");
  }
}

std::string rankDirectory(const std::string& root, int64_t rank) {
  return root + "/rank" + std::to_string(rank);
}

// The worker's outputs, written as .npy (half and bfloat16 widened; read
// back to the output's dtype).
void writeRankOutputs(const std::string& dir, const std::vector<runtime::Tensor>& outputs) {
  std::filesystem::create_directories(dir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    runtime::writeNpy(dir + "/output_" + std::to_string(i) + ".npy", outputs[i]);
  }
}

std::vector<runtime::Tensor> readRankOutputs(const std::string& dir, const ir::Fusion& fusion) {
  std::vector<runtime::Tensor> outputs;
  for (size_t i = 0; i < fusion.outputs().size(); ++i) {
    const runtime::Tensor t = runtime::readNpy(dir + "/output_" + std::to_string(i) + ".npy");
    outputs.push_back(t.to(fusion.outputs()[i].val->dtype()));
  }
  return outputs;
}

std::vector<std::vector<runtime::Tensor>> runWorkers(const CommandLine& cl,
                                                     const LoadedScript& loaded, uint64_t seed,
                                                     int64_t ranks) {
  const int gpus = runtime::cudaDeviceCount();
  FL_CHECK(gpus >= ranks, "--ranks ", ranks, " --backend cuda needs ", ranks,
           " GPUs, this machine has ", gpus,
           gpus == 0 ? " (" + runtime::cudaUnavailableReason() + ")" : "",
           "; --backend cpu runs the ranks as threads");
  const std::string reason = runtime::ncclUnavailableReason();
  FL_CHECK(reason.empty(), "--backend cuda --ranks needs NCCL: ", reason);
  const std::string id = runtime::ncclIdToHex(runtime::ncclNewId());
  // mkdtemp's template: a fresh directory under $TMPDIR (or /tmp).
  std::string pattern = (std::filesystem::temp_directory_path() / "fuserlab-ranks-XXXXXX").string();
  FL_CHECK(mkdtemp(pattern.data()) != nullptr,
           "cannot make a directory for the ranks' outputs under ",
           std::filesystem::temp_directory_path().string());
  const std::string root = pattern;

  std::vector<pid_t> pids;
  for (int64_t r = 0; r < ranks; ++r) {
    std::vector<std::string> args = {"/proc/self/exe",
                                     "rank-worker",
                                     loaded.script.fileName,
                                     "--ranks",
                                     std::to_string(ranks),
                                     "--rank",
                                     std::to_string(r),
                                     "--nccl-id",
                                     id,
                                     "--seed",
                                     std::to_string(seed),
                                     "--out",
                                     rankDirectory(root, r)};
    for (const char* option : {"fusion", "inputs"}) {
      if (auto v = cl.value(option)) {
        args.push_back(std::string("--") + option);
        args.push_back(*v);
      }
    }
    for (const char* option : {"set", "disable-pass"}) {
      for (const std::string& v : cl.values(option)) {
        args.push_back(std::string("--") + option);
        args.push_back(v);
      }
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int error = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ);
    FL_CHECK(error == 0, "starting rank ", r, " failed: ", std::strerror(error));
    pids.push_back(pid);
  }
  std::string failures;
  for (int64_t r = 0; r < ranks; ++r) {
    int status = 0;
    waitpid(pids[static_cast<size_t>(r)], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      failures += " rank " + std::to_string(r) +
                  (WIFEXITED(status) ? " exited with " + std::to_string(WEXITSTATUS(status))
                                     : " was killed by signal " + std::to_string(WTERMSIG(status)));
    }
  }
  FL_CHECK(failures.empty(), "the ranks failed:", failures, " (their errors are above)");
  std::vector<std::vector<runtime::Tensor>> perRank;
  for (int64_t r = 0; r < ranks; ++r) {
    perRank.push_back(readRankOutputs(rankDirectory(root, r), *loaded.fusion));
  }
  std::filesystem::remove_all(root);
  return perRank;
}

}  // namespace

RanksRun runRanks(const CommandLine& cl, const LoadedScript& loaded,
                  const runtime::Arguments& inputs, const std::string& backend, uint64_t seed) {
  const int64_t ranks = parseRanks(*cl.value("ranks"));
  const ir::Fusion& fusion = *loaded.fusion;
  const auto start = std::chrono::steady_clock::now();
  runtime::MultiDeviceProgram program(fusion, inputs, ranks, compileOptionsFrom(cl),
                                      deviceFrom(cl));
  printProgram(program);

  std::vector<std::vector<runtime::Tensor>> perRank;
  if (backend == "cpu") {
    std::vector<runtime::CommunicationRecord> records;
    perRank = runtime::runRanksAsThreads(program, inputs, &records);
    for (const auto& r : records) {
      std::printf("  rank 0: %s into %s, %lld bytes sent\n", r.collective.c_str(), r.tensor.c_str(),
                  static_cast<long long>(r.bytes));
    }
  } else {
    perRank = runWorkers(cl, loaded, seed, ranks);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%lld ranks (%s) ran in %.3f s\n", static_cast<long long>(ranks),
              backend == "cpu" ? "threads, cpu reference" : "processes, one GPU each, NCCL",
              seconds);

  RanksRun result;
  result.outputs = program.gather(perRank);
  if (!cl.flag("check")) return result;
  const std::vector<runtime::Tensor> reference = runtime::runReference(fusion, inputs);
  const int failed = printOutputChecks(result.outputs, reference, fusion);
  if (failed == 0) {
    std::cout << "check passed: " << result.outputs.size() << " outputs of " << ranks
              << " ranks match the unsharded cpu reference\n";
  } else {
    std::cout << "check FAILED: " << failed << " of " << result.outputs.size()
              << " outputs differ from the unsharded cpu reference\n";
    result.exitCode = 1;
  }
  return result;
}

int rankWorkerCommand(const std::vector<std::string>& args) {
  std::set<std::string> options = kScriptOptions;
  options.insert({"ranks", "rank", "nccl-id", "seed", "out"});
  options.insert(kCompileOptions.begin(), kCompileOptions.end());
  CommandLine cl(args, options, {});
  const int64_t ranks = parseRanks(cl.value("ranks").value_or(""));
  const int64_t rank = ir::parseInteger(cl.value("rank").value_or("0"), "--rank", 0, ranks - 1);
  const uint64_t seed = ir::parseUnsigned(cl.value("seed").value_or("0"), "--seed");
  const LoadedScript loaded = loadScript(cl);
  const runtime::Arguments inputs =
      frontend::makeInputs(loaded.inputs.value_or(std::vector<frontend::InputSpec>{}), seed);
  try {
    runtime::MultiDeviceProgram program(*loaded.fusion, inputs, ranks, compileOptionsFrom(cl),
                                        deviceFrom(cl));
    runtime::NcclCommunicator comm(runtime::ncclIdFromHex(cl.value("nccl-id").value_or("")), ranks,
                                   rank, static_cast<int>(rank));
    runtime::GpuSegmentBackend backend(static_cast<int>(rank), compileOptionsFrom(cl));
    const std::vector<runtime::Tensor> outputs = program.runRank(inputs, comm, backend);
    writeRankOutputs(cl.value("out").value_or("."), outputs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %lld: %s\n", static_cast<long long>(rank), e.what());
    return 2;
  }
  return 0;
}

}  // namespace fuserlab::cli
