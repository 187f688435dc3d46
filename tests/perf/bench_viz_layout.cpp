// Benchmark: Graphviz layout of generated fusions' graphs, on one core.
// Prints, for the segment-level graph of a large fusion (default 5,000 ops)
// and the full segmented graph of a smaller one (default 1,000 ops), the
// median layout time (DOT text + dot + read-back, as LayoutService does it)
// and its ratio to issue 9's budgets (1 s and 2 s). Exits 0 either way.
//
//   bench_viz_layout [OVERVIEW_OPS] [FULL_OPS] [REPETITIONS] [DOT_DIR]
//
// Then the shapes of real fusions, each as the full fusion graph and the full
// segmented graph against the 2 s budget: chains of 200, 300 and 2,000 ops
// where every other op reads one shared tensor (a bias), and the suite's
// LayerNorm and RMSNorm backward, RoPE and the attention example.
//
// Times are wall and CPU (the process's, which counts the layout worker):
// on a shared machine the CPU time is the one-core figure. DOT_DIR, when
// given, receives the two graphs as overview.dot and full.dot.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "tests/source_dir.h"
#include "tests/viz/layout_shapes.h"
#include "viz/dot_writer.h"
#include "viz/fusion_graph.h"
#include "viz/layout_service.h"
#include "viz/segmented_graph.h"

namespace {

using Clock = std::chrono::steady_clock;

// A normalization-like chain on a float upcast of a bf16 input: elementwise
// ops, a row reduction and its broadcast every 25 ops, a side branch joined
// back every 7, and a segment_set every 10 so the fusion has many segments
// (one per ~10 ops), as a long model fusion does.
std::string generateScript(int ops) {
  std::ostringstream s;
  s << "def fusion(fd : FusionDefinition) -> None :\n"
    << "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
       "dtype=DataType.BFloat16, is_cpu=False)\n"
    << "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n";
  const char* unary[] = {"exp", "tanh", "neg", "abs", "sigmoid"};
  int last = 1, next = 2, emitted = 1, branch = 1;
  while (emitted < ops - 1) {
    if (emitted % 25 == 0) {
      s << "    T" << next << " = fd.ops.sum(T" << last << ", dims=[1])\n"
        << "    T" << next + 1 << " = fd.ops.broadcast(T" << next
        << ", is_broadcast_dim=[False, True])\n"
        << "    T" << next + 2 << " = fd.ops.sub(T" << last << ", T" << next + 1 << ")\n";
      last = next + 2;
      next += 3;
      emitted += 3;
    } else if (emitted % 10 == 0) {
      s << "    T" << next << " = fd.ops.segment_set(T" << last << ")\n";
      last = next++;
      ++emitted;
    } else if (emitted % 7 == 0) {
      s << "    T" << next << " = fd.ops.add(T" << last << ", T" << branch << ")\n";
      branch = last;
      last = next++;
      ++emitted;
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

fuserlab::report::CompileReport compileGenerated(int ops, double* seconds) {
  using namespace fuserlab;
  const frontend::Script script = frontend::readScript(generateScript(ops), "generated.py");
  const auto start = Clock::now();
  auto compiled = runtime::compileFusion(
      script.fusion(), compiler::CompileOptions{}, scheduler::defaultDevice(),
      frontend::makeInputShapes(frontend::parseInputsOption("2048x1024:bf16")), nullptr,
      /*withTextDumps=*/false);
  *seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return std::move(compiled.report);
}

double cpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

struct Timing {
  double median = 0, low = 0, high = 0;
  double cpuMedian = 0;
  size_t nodes = 0, edges = 0;
};

// A fresh service per run, so no run is answered from the cache.
Timing timeLayout(const fuserlab::viz::Graph& graph, int repetitions) {
  std::vector<double> seconds, cpu;
  Timing timing;
  for (int i = 0; i < repetitions; ++i) {
    fuserlab::viz::LayoutService service;
    const auto start = Clock::now();
    const double cpuStart = cpuSeconds();
    auto layout = service.layout(graph).get();
    cpu.push_back(cpuSeconds() - cpuStart);
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    timing.nodes = layout->nodes.size();
    timing.edges = layout->edges.size();
  }
  std::sort(seconds.begin(), seconds.end());
  timing.median = seconds[seconds.size() / 2];
  timing.low = seconds.front();
  timing.high = seconds.back();
  std::sort(cpu.begin(), cpu.end());
  timing.cpuMedian = cpu[cpu.size() / 2];
  return timing;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fuserlab;
  const int overviewOps = argc > 1 ? std::atoi(argv[1]) : 5000;
  const int fullOps = argc > 2 ? std::atoi(argv[2]) : 1000;
  const int repetitions = argc > 3 ? std::atoi(argv[3]) : 5;
  const std::string dotDir = argc > 4 ? argv[4] : "";

  double compileSeconds = 0;
  const auto big = compileGenerated(overviewOps, &compileSeconds);
  size_t exprs = 0;
  for (const auto& segment : big.segments) exprs += segment.exprs.size();
  const viz::Graph overviewGraph = viz::buildSegmentOverviewGraph(big);
  if (!dotDir.empty()) std::ofstream(dotDir + "/overview.dot") << viz::toDot(overviewGraph);
  const Timing overview = timeLayout(overviewGraph, repetitions);
  std::printf(
      "segment-level layout: %d-op fusion (%zu segment exprs, %zu segments; "
      "compiled in %.2f s), %zu nodes, %zu edges: CPU median %.3f s, wall "
      "median %.3f s (min %.3f, max %.3f) over %d runs; CPU %.2fx the 1 s "
      "budget\n",
      overviewOps, exprs, big.segments.size(), compileSeconds, overview.nodes, overview.edges,
      overview.cpuMedian, overview.median, overview.low, overview.high, repetitions,
      overview.cpuMedian / 1.0);

  const auto small = compileGenerated(fullOps, &compileSeconds);
  exprs = 0;
  for (const auto& segment : small.segments) exprs += segment.exprs.size();
  const viz::Graph fullGraph = viz::buildSegmentedGraph(small);
  if (!dotDir.empty()) std::ofstream(dotDir + "/full.dot") << viz::toDot(fullGraph);
  const Timing full = timeLayout(fullGraph, repetitions);
  std::printf(
      "full segmented layout: %d-op fusion (%zu segment exprs, %zu segments), "
      "%zu nodes, %zu edges: CPU median %.3f s, wall median %.3f s (min %.3f, "
      "max %.3f) over %d runs; CPU %.2fx the 2 s budget\n",
      fullOps, exprs, small.segments.size(), full.nodes, full.edges, full.cpuMedian, full.median,
      full.low, full.high, repetitions, full.cpuMedian / 2.0);

  struct Shape {
    std::string name;
    report::CompileReport report;
  };
  std::vector<Shape> shapes;
  for (int ops : {200, 300, 2000}) {
    const frontend::Script script =
        frontend::readScript(viz::testing::sharedInputChainScript(ops), "shared_chain.py");
    shapes.push_back({"shared-input chain, " + std::to_string(ops) + " ops",
                      runtime::compileFusion(script.fusion(), compiler::CompileOptions{},
                                             scheduler::defaultDevice(),
                                             frontend::makeInputShapes(*script.inputs))
                          .report});
  }
  for (const char* file :
       {"tests/perf/suite/layernorm_bwd_8192x4096.py", "tests/perf/suite/rmsnorm_bwd_8192x4096.py",
        "tests/perf/suite/rope_4x32x2048x128.py", "resources/examples/sdpa_fwd.py"}) {
    const frontend::Script script =
        frontend::readScriptFile(fuserlab::test::sourceDir() + "/" + file);
    shapes.push_back({file, runtime::compileFusion(script.fusion(), compiler::CompileOptions{},
                                                   scheduler::defaultDevice(),
                                                   frontend::makeInputShapes(*script.inputs))
                                .report});
  }
  for (const Shape& shape : shapes) {
    const Timing fusion = timeLayout(viz::buildFusionGraph(shape.report), repetitions);
    const Timing segmented = timeLayout(viz::buildSegmentedGraph(shape.report), repetitions);
    std::printf(
        "%s: fusion graph %zu nodes, CPU median %.3f s (%.2fx the 2 s budget); "
        "segmented %zu nodes, CPU median %.3f s (%.2fx)\n",
        shape.name.c_str(), fusion.nodes, fusion.cpuMedian, fusion.cpuMedian / 2.0, segmented.nodes,
        segmented.cpuMedian, segmented.cpuMedian / 2.0);
  }
  return 0;
}
