// Benchmark: passes + segmentation + heuristics for generated fusions of N
// ops (default 200), on one core. Prints, per fusion, the median compile time
// over the repetitions and its ratio to the 2 ms budget issue 3 sets; exits 0
// either way (timing is reported, not asserted).
//
//   bench_compile [OPS] [REPETITIONS] [FUSION]
//   bench_compile --write-scripts DIR [OPS]
//
// FUSION (one_segment, segment_set or inner_outer) times that fusion only.
// The second form writes the three generated fusions as scripts
// (DIR/bench_one_segment.py, bench_segment_set.py, bench_inner_outer.py) for
// `fuserlab-cli inspect` (tests/perf/check_compile_identity.py uses them).
//
// Three fusions of N ops: "one segment" (the budget's case: the whole fusion
// goes to one scheduler), "segment_set" (a segment_set every 40 ops, so the
// segmenter merges groups between the cuts) and "inner+outer" (the row
// reductions alternate with column reductions, which no one kernel takes:
// the merger tries many candidate groups).
//
// bench_compile runs with the allocator the CLI and the workbench link
// (tcmalloc where installed); bench_compile_system_malloc, the same source,
// with the system's malloc. Each line names the allocator it ran with.
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"

namespace {

enum class Shape { OneSegment, SegmentSets, InnerOuter };

// A normalization-like chain: elementwise ops on a float upcast of a bf16
// input, with a row reduction and its broadcast every 25 ops (every other
// one a column reduction for InnerOuter), and for SegmentSets a segment_set
// every 40 ops.
std::string generateScript(int ops, Shape shape) {
  std::ostringstream s;
  s << "def fusion(fd : FusionDefinition) -> None :\n"
    << "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
       "dtype=DataType.BFloat16, is_cpu=False)\n"
    << "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n";
  const char* unary[] = {"exp", "tanh", "neg", "abs", "sigmoid"};
  int last = 1;
  int next = 2;
  int emitted = 1;
  while (emitted < ops - 1) {
    if (shape == Shape::SegmentSets && emitted % 40 == 0) {
      s << "    T" << next << " = fd.ops.segment_set(T" << last << ")\n";
      last = next++;
      ++emitted;
    } else if (emitted % 25 == 0) {
      const bool column = shape == Shape::InnerOuter && (emitted / 25) % 2 == 1;
      s << "    T" << next << " = fd.ops.sum(T" << last << ", dims=[" << (column ? 0 : 1) << "])\n";
      s << "    T" << next + 1 << " = fd.ops.broadcast(T" << next
        << ", is_broadcast_dim=" << (column ? "[True, False]" : "[False, True]") << ")\n";
      s << "    T" << next + 2 << " = fd.ops.sub(T" << last << ", T" << next + 1 << ")\n";
      last = next + 2;
      next += 3;
      emitted += 3;
    } else if (emitted % 2 == 0) {
      s << "    T" << next << " = fd.ops." << unary[emitted % 5] << "(T" << last << ")\n";
      last = next++;
      ++emitted;
    } else {
      s << "    T" << next << " = fd.ops.mul(T" << last << ", 0.5)\n";
      last = next++;
      ++emitted;
    }
  }
  s << "    T" << next << " = fd.ops.cast(T" << last << ", dtype=DataType.BFloat16)\n"
    << "    fd.add_output(T" << next << ")\n";
  return s.str();
}

// The allocator this process runs with: tcmalloc exports tc_malloc.
const char* allocatorName() {
  return dlsym(RTLD_DEFAULT, "tc_malloc") != nullptr ? "tcmalloc" : "system malloc";
}

// This thread's CPU time: unlike the wall clock, not stretched by other
// processes on a shared machine.
double threadCpuMicros() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

// Prints one fusion's line.
void bench(const char* label, const std::string& source, int repetitions) {
  using namespace fuserlab;
  const frontend::Script script = frontend::readScript(source, "generated.py");
  const ir::Fusion& fusion = script.fusion();
  const auto inputs = frontend::makeInputShapes(frontend::parseInputsOption("2048x1024:bf16"));
  const scheduler::DeviceSpec& device = scheduler::defaultDevice();
  compiler::CompileOptions options;

  std::vector<double> micros;
  std::vector<double> cpuMicros;  // the whole call, report included
  int segments = 0;
  for (int i = 0; i < repetitions + 3; ++i) {
    const double cpuStart = threadCpuMicros();
    runtime::CompiledFusion compiled =
        runtime::compileFusion(fusion, options, device, inputs, nullptr, /*withTextDumps=*/false);
    const double cpu = threadCpuMicros() - cpuStart;
    const double us = compiled.report.compileMicroseconds;
    if (i >= 3) {  // the first runs warm caches
      micros.push_back(us);
      cpuMicros.push_back(cpu);
    }
    segments = static_cast<int>(compiled.report.segments.size());
  }
  std::sort(micros.begin(), micros.end());
  std::sort(cpuMicros.begin(), cpuMicros.end());
  const double median = micros[micros.size() / 2];
  const double p20 = micros[micros.size() / 5];
  const double p80 = micros[micros.size() * 4 / 5];
  std::printf(
      "compile (passes + segmentation + heuristics), %s: %zu exprs, %d "
      "segments, median %.0f us (min %.0f, p20 %.0f, p80 %.0f) over %d runs; "
      "%.2fx the 2 ms budget; CPU time of the whole call (report included) "
      "median %.0f us; %s\n",
      label, fusion.exprsForOutputs().size(), segments, median, micros.front(), p20, p80,
      repetitions, median / 2000.0, cpuMicros[cpuMicros.size() / 2], allocatorName());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--write-scripts") {
    const std::string dir = argv[2];
    const int ops = argc > 3 ? std::atoi(argv[3]) : 200;
    const std::pair<const char*, Shape> shapes[] = {{"bench_one_segment.py", Shape::OneSegment},
                                                    {"bench_segment_set.py", Shape::SegmentSets},
                                                    {"bench_inner_outer.py", Shape::InnerOuter}};
    for (const auto& [name, shape] : shapes) {
      std::ofstream file(dir + "/" + name);
      file << generateScript(ops, shape);
      if (!file.good()) {
        std::fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), name);
        return 1;
      }
    }
    return 0;
  }
  const int ops = argc > 1 ? std::atoi(argv[1]) : 200;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 50;
  const std::string only = argc > 3 ? argv[3] : "";
  if (!only.empty() && only != "one_segment" && only != "segment_set" && only != "inner_outer") {
    std::fprintf(stderr,
                 "unknown fusion '%s': one_segment, segment_set or "
                 "inner_outer\n",
                 only.c_str());
    return 1;
  }
  auto wanted = [&](const char* name) { return only.empty() || only == name; };
  if (wanted("one_segment")) {
    bench("one segment", generateScript(ops, Shape::OneSegment), repetitions);
  }
  if (wanted("segment_set")) {
    bench("segment_set", generateScript(ops, Shape::SegmentSets), repetitions);
  }
  if (wanted("inner_outer")) {
    bench("inner+outer", generateScript(ops, Shape::InnerOuter), repetitions);
  }
  return 0;
}
