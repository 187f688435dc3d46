// fuserlab-difftest: the differential tester. Generates N random fusions from
// a seed (tests/difftest/fusion_generator.h), runs each as a script through the
// reader, the compiler and either NVRTC (--mode compile, no GPU: what CI
// runs) or a GPU with poisoned outputs checked against the CPU reference
// (--mode gpu), and prints "N passed, M failed". Each failing fusion is
// written as a script, then shrunk (greedily, keeping the same kind of
// failure) and written again as its minimal script.
//
//   fuserlab-difftest [--mode compile|gpu] [--seed S] [--count N] [--jobs J]
//                     [--out DIR] [--device N] [--max-ops K]
//                     [--shrink-evaluations E] [--shrink-failures F]
//                     [--case-timeout SECONDS]
//   fuserlab-difftest --print --seed S [--path P] [--max-ops K]
//
// Case i uses seed S + i, so `--seed S+i --count 1` repeats it alone. Exit
// status: 0 when nothing failed, 1 when a case failed, 2 on a usage error.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/ir/error.h"
#include "tests/difftest/case_runner.h"
#include "tests/difftest/fusion_generator.h"
#include "tests/difftest/worker_pool.h"

namespace fuserlab::difftest {
namespace {

struct Options {
  Mode mode = Mode::Compile;
  uint64_t seed = 1;
  int64_t count = 100;
  int jobs = 0;  // 0: the host's cores
  std::string out = "difftest-failures";
  int device = 0;
  int maxOps = GeneratorOptions{}.maxOps;
  int shrinkEvaluations = 200;
  int shrinkFailures = 20;
  double caseTimeout = 300;
  bool worker = false;
  bool print = false;
  std::string path;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "fuserlab-difftest: %s\n"
               "usage: fuserlab-difftest [--mode compile|gpu] [--seed S] [--count N] "
               "[--jobs J] [--out DIR] [--device N] [--max-ops K] [--shrink-evaluations E] "
               "[--shrink-failures F] [--case-timeout SECONDS]\n",
               why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--worker" || a == "--print") {
      (a == "--worker" ? o.worker : o.print) = true;
      continue;
    }
    if (i + 1 >= argc) usage(a + " needs a value");
    const std::string v = argv[++i];
    try {
      if (a == "--mode") {
        if (v != "compile" && v != "gpu") usage("--mode is compile or gpu, not '" + v + "'");
        o.mode = v == "gpu" ? Mode::Gpu : Mode::Compile;
      } else if (a == "--seed") {
        o.seed = std::stoull(v);
      } else if (a == "--count") {
        o.count = std::stoll(v);
      } else if (a == "--jobs") {
        o.jobs = std::stoi(v);
      } else if (a == "--out") {
        o.out = v;
      } else if (a == "--device") {
        o.device = std::stoi(v);
      } else if (a == "--max-ops") {
        o.maxOps = std::stoi(v);
      } else if (a == "--shrink-evaluations") {
        o.shrinkEvaluations = std::stoi(v);
      } else if (a == "--shrink-failures") {
        o.shrinkFailures = std::stoi(v);
      } else if (a == "--case-timeout") {
        o.caseTimeout = std::stod(v);
      } else if (a == "--path") {
        o.path = v;
      } else {
        usage("unknown option " + a);
      }
    } catch (const std::logic_error&) {
      usage("bad value '" + v + "' for " + a);
    }
  }
  if (o.count < 0) usage("--count must be >= 0");
  return o;
}

std::vector<size_t> parsePath(const std::string& path) {
  std::vector<size_t> steps;
  std::istringstream in(path);
  std::string step;
  while (std::getline(in, step, '.')) {
    if (!step.empty()) steps.push_back(std::stoul(step));
  }
  return steps;
}

//! The generated fusion for `seed`, shrunk along `path`.
RandomFusion fusionFor(uint64_t seed, const std::string& path, const Options& o) {
  GeneratorOptions generator;
  generator.maxOps = o.maxOps;
  RandomFusion fusion = generateFusion(seed, generator);
  for (size_t step : parsePath(path)) {
    std::vector<RandomFusion> candidates = shrinkCandidates(fusion);
    FL_CHECK(step < candidates.size(), "shrink step ", step, " of ", path,
             " is past the candidates (", candidates.size(), ")");
    fusion = std::move(candidates[step]);
  }
  return fusion;
}

std::string scriptName(uint64_t seed, const std::string& path) {
  return "difftest_" + std::to_string(seed) + (path.empty() ? "" : "_min") + ".py";
}

CaseResult runOne(uint64_t seed, const std::string& path, const Options& o) {
  // The tester's own test makes one seed's worker die, as a GPU fault would.
  if (const char* abortSeed = std::getenv("FUSERLAB_DIFFTEST_ABORT_SEED")) {
    if (std::to_string(seed) == abortSeed) std::abort();
  }
  const RandomFusion fusion = fusionFor(seed, path, o);
  CaseResult result =
      runCase(renderScript(fusion), scriptName(seed, path), fusion.options, o.mode, o.device);
  // A CUDA error (a fault in a kernel) can leave the context unusable for
  // every later case: it is this case's crash, and the worker starts over.
  if (result.detail.find("cudaError") != std::string::npos) {
    result.status = Status::Crash;
    result.restartWorker = true;
  }
  return result;
}

std::string withHeader(const std::string& script, const CaseResult& result, const Options& o,
                       uint64_t seed, const std::string& path) {
  std::ostringstream out;
  out << "# fuserlab-difftest --mode " << (o.mode == Mode::Gpu ? "gpu" : "compile") << " --seed "
      << seed << " --count 1 --max-ops " << o.maxOps;
  if (!path.empty()) out << " (shrunk along " << path << ")";
  out << "\n# " << toString(result.status) << ": " << result.detail << "\n";
  return out.str() + script;
}

void writeScript(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  FL_CHECK(out.good(), "cannot write '", file.string(), "'");
}

//! Greedy shrinking: among the candidates of the current fusion, the first
//! (most aggressive) that fails with the same status becomes current; the
//! candidates are tried `jobs` at a time in worker processes.
std::string shrink(const PoolOptions& pool, uint64_t seed, Status status, const Options& o,
                   CaseResult& last) {
  std::string path;
  int evaluations = 0;
  for (;;) {
    const size_t candidates = shrinkCandidates(fusionFor(seed, path, o)).size();
    bool progressed = false;
    for (size_t first = 0; first < candidates && evaluations < o.shrinkEvaluations;) {
      const size_t batch = std::min<size_t>(std::max(1, pool.jobs), candidates - first);
      std::vector<WorkerJob> jobs;
      for (size_t c = first; c < first + batch; ++c) {
        jobs.push_back({seed, 1, path + (path.empty() ? "" : ".") + std::to_string(c)});
      }
      std::vector<CaseResult> results(batch);
      runJobs(pool, jobs, [&](size_t job, int64_t, const CaseResult& r) { results[job] = r; });
      evaluations += static_cast<int>(batch);
      for (size_t k = 0; k < batch; ++k) {
        if (results[k].status == status) {
          path = jobs[k].shrinkPath;
          last = results[k];
          progressed = true;
          break;
        }
      }
      if (progressed) break;
      first += batch;
    }
    if (!progressed) return path;
  }
}

int mainOf(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.print) {
    // The script of one case (shrunk along --path), as a failure writes it.
    std::fputs(renderScript(fusionFor(o.seed, o.path, o)).c_str(), stdout);
    return 0;
  }
  if (o.worker) {
    return workerMain({o.seed, o.count, o.path}, [&](uint64_t seed, const std::string& path) {
      return runOne(seed, path, o);
    });
  }
  if (o.jobs <= 0) o.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  PoolOptions pool;
  pool.executable = std::filesystem::read_symlink("/proc/self/exe").string();
  pool.workerArguments = {"--mode",    o.mode == Mode::Gpu ? "gpu" : "compile",
                          "--device",  std::to_string(o.device),
                          "--max-ops", std::to_string(o.maxOps)};
  pool.jobs = o.jobs;
  pool.caseTimeoutSeconds = o.caseTimeout;

  // Chunks small enough to spread over the workers, large enough that a
  // worker's start-up (CUDA context) is paid rarely.
  const int64_t chunk = std::clamp<int64_t>(o.count / (o.jobs * 4), 1, 50);
  std::vector<WorkerJob> jobs;
  for (int64_t first = 0; first < o.count; first += chunk) {
    jobs.push_back({o.seed + static_cast<uint64_t>(first), std::min(chunk, o.count - first), ""});
  }
  std::map<Status, int64_t> counts;
  std::map<uint64_t, CaseResult> failures;
  // By reason: how many, and the lowest seed (to look at with --print).
  std::map<std::string, std::pair<int64_t, uint64_t>> unavailableReasons;
  int64_t done = 0, kernels = 0;
  const auto start = std::chrono::steady_clock::now();
  std::printf("difftest: %lld fusions from seed %llu, mode %s, %d workers\n",
              static_cast<long long>(o.count), static_cast<unsigned long long>(o.seed),
              o.mode == Mode::Gpu ? "gpu" : "compile", o.jobs);
  std::fflush(stdout);
  runJobs(pool, jobs, [&](size_t job, int64_t index, const CaseResult& r) {
    const uint64_t seed = jobs[job].firstSeed + static_cast<uint64_t>(index);
    ++counts[r.status];
    kernels += r.kernels;
    if (isFailure(r.status) || r.status == Status::Invalid) failures[seed] = r;
    if (r.status == Status::Unavailable || r.status == Status::Refused) {
      auto& [n, example] =
          unavailableReasons.try_emplace(r.detail.substr(0, 100), 0, seed).first->second;
      ++n;
      example = std::min(example, seed);
    }
    if (isFailure(r.status)) {
      std::printf("  seed %llu: %s: %s\n", static_cast<unsigned long long>(seed),
                  toString(r.status), r.detail.c_str());
    }
    ++done;
    if (done % std::max<int64_t>(1, o.count / 20) == 0 || done == o.count) {
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "difftest: %lld/%lld in %.0f s\n", static_cast<long long>(done),
                   static_cast<long long>(o.count), s);
    }
    std::fflush(stdout);
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::error_code error;
  if (!failures.empty()) std::filesystem::create_directories(o.out, error);
  int shrunk = 0;
  std::vector<std::string> written;
  for (const auto& [seed, result] : failures) {
    const RandomFusion fusion = fusionFor(seed, "", o);
    const std::filesystem::path file = std::filesystem::path(o.out) / scriptName(seed, "");
    writeScript(file, withHeader(renderScript(fusion), result, o, seed, ""));
    std::string line = "  " + std::string(toString(result.status)) + ": " + file.string();
    if (isFailure(result.status) && shrunk < o.shrinkFailures) {
      ++shrunk;
      CaseResult last = result;
      const std::string path = shrink(pool, seed, result.status, o, last);
      if (!path.empty()) {
        const std::filesystem::path minimal = std::filesystem::path(o.out) / scriptName(seed, path);
        writeScript(minimal,
                    withHeader(renderScript(fusionFor(seed, path, o)), last, o, seed, path));
        line += " (shrunk along " + path + ": " + minimal.string() + ")";
      }
    }
    written.push_back(line);
  }

  int64_t failed = 0;
  for (const auto& [status, n] : counts) failed += isFailure(status) ? n : 0;
  const int64_t ran = done;
  std::printf("%lld passed, %lld failed", static_cast<long long>(counts[Status::Pass]),
              static_cast<long long>(failed));
  std::printf(" (of %lld run in %.1f s, %lld kernels", static_cast<long long>(ran), seconds,
              static_cast<long long>(kernels));
  for (Status s : {Status::Unavailable, Status::Refused, Status::Invalid, Status::WrongResult,
                   Status::InternalError, Status::BuildFailure, Status::Crash}) {
    if (counts[s] > 0) std::printf(", %lld %s", static_cast<long long>(counts[s]), toString(s));
  }
  std::printf(")\n");
  if (ran != o.count) {
    std::printf("%lld fusions were not run: a worker died before starting them\n",
                static_cast<long long>(o.count - ran));
  }
  if (!unavailableReasons.empty()) {
    std::printf("not run on purpose (unavailable or refused), by reason:\n");
    for (const auto& [reason, seen] : unavailableReasons) {
      std::printf("  %lld x %s (seed %llu)\n", static_cast<long long>(seen.first), reason.c_str(),
                  static_cast<unsigned long long>(seen.second));
    }
  }
  for (const std::string& line : written) std::printf("%s\n", line.c_str());
  return failed > 0 || ran != o.count || counts[Status::Invalid] > 0 ? 1 : 0;
}

}  // namespace
}  // namespace fuserlab::difftest

int main(int argc, char** argv) {
  try {
    return fuserlab::difftest::mainOf(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fuserlab-difftest: %s\n", error.what());
    return 2;
  }
}
