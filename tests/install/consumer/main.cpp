// Reads a fusion from a script string with FuserLab's reader, compiles it
// for a built-in device at its inputs block's sizes (metadata only: no GPU,
// no data) and prints the segments; then compiles it again with a heuristics
// database (a new, empty one) as the params' provider, as a runtime that
// ships tuned params does.
#include <cstdio>
#include <exception>

#include "core/compiler/compile_options.h"
#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/scheduler/device_spec.h"
#include "db/database_provider.h"
#include "db/heuristics_database.h"
#include "measure/sample_statistics.h"
#include "tuner/shard.h"
#include "viz/fusion_graph.h"

namespace {

constexpr const char* kScript = R"(from nvfuser import FusionDefinition, DataType

def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.sum(T0, dims=[1], keepdim=False, dtype=DataType.Null)
    T2 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.exp(T1)
    fd.add_output(T3)
    fd.add_output(T2)

with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn((1024, 4096), dtype=torch.float32, device='cuda:0'),
]
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace fuserlab;
  try {
    const frontend::Script script = frontend::readScript(kScript, "consumer.py");
    const auto device = scheduler::findBuiltinDevice("h100");
    if (!device || !script.inputs) return 3;
    const runtime::CompiledFusion compiled =
        runtime::compileFusion(script.fusion(), compiler::CompileOptions{}, *device,
                               frontend::makeInputShapes(*script.inputs));
    std::printf("segments: %zu\n", compiled.report.segments.size());
    for (const auto& segment : compiled.report.segments) {
      std::printf("segment %d: %s\n", segment.id, segment.scheduler.c_str());
    }
    // measure/ is installed too: the benchmark's statistics.
    std::printf("median of 3, 1, 2: %g\n", runtime::summarizeSamples({3, 1, 2}).median);
    // And db/: a database file (argv[1]), created empty, answers lookups;
    // with no entry for the fusion the built-in heuristics choose.
    if (argc > 1) {
      const db::HeuristicsDatabase created(argv[1], db::HeuristicsDatabase::Access::Write);
      const db::DatabaseProvider provider(argv[1]);
      const runtime::CompiledFusion withDatabase =
          runtime::compileFusion(script.fusion(), compiler::CompileOptions{}, *device,
                                 frontend::makeInputShapes(*script.inputs), &provider);
      std::printf("with the database: %zu segments\n", withDatabase.report.segments.size());
    }
    // tuner/: a campaign's shards; viz/: the fusion's graph.
    std::printf("shard 2/3 of 10 items: %zu\n",
                tuner::shardItems(10, tuner::parseShard("2/3")).size());
    std::printf("graph: %zu nodes\n", viz::buildFusionGraph(compiled.report).nodes.size());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
