// The differential tester's generator: the same seed gives the same script,
// every generated fusion and every shrink candidate is read and runs on the
// CPU reference, and the generated set covers the op kinds and input
// layouts the tester exists for.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/compiler/compile_options.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/reference/reference_run.h"
#include "tests/difftest/fusion_generator.h"

namespace fuserlab::difftest {
namespace {

void readAndRun(const RandomFusion& fusion) {
  const std::string text = renderScript(fusion);
  try {
    const frontend::Script script = frontend::readScript(text, "difftest.py");
    ASSERT_TRUE(script.inputs.has_value());
    (void)runtime::runReference(script.fusion(), frontend::makeInputs(*script.inputs, 3));
    compiler::CompileOptions options;
    for (const std::string& o : fusion.options) options.setFromAssignment(o);
  } catch (const UserError& error) {
    ADD_FAILURE() << "seed " << fusion.seed << ": " << error.message() << "\n" << text;
  }
}

// Beside a log-softmax of rank 2 or more, its sums over every other axis
// are outputs (what the combined kernel computes with the rows when the
// softmax runs along the innermost axis); GeneratorOptions::columnSums off
// leaves them out and changes nothing else.
TEST(FusionGeneratorTest, LogSoftmaxRowsComeWithTheirColumnSums) {
  int withSums = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const RandomFusion on = generateFusion(seed);
    GeneratorOptions offOptions;
    offOptions.columnSums = false;
    const RandomFusion off = generateFusion(seed, offOptions);
    int sums = 0;
    for (const Output& o : on.outputs)
      sums += on.nodes[static_cast<size_t>(o.node)].op == "column_sum";
    for (const Node& n : off.nodes) EXPECT_NE(n.op, "column_sum") << seed;
    if (sums == 0) {
      EXPECT_EQ(renderScript(on), renderScript(off)) << seed;
    }
    withSums += sums > 0 ? 1 : 0;
  }
  EXPECT_GT(withSums, 0);
}

// A sum over only the innermost axis becomes GroupNorm's shape of fusion
// (rows merged by a reshape, centred, reshaped back, weighted: what
// refine_reshaped_reductions rewrites); GeneratorOptions::groupedRows off
// leaves every fusion without one as it was.
TEST(FusionGeneratorTest, InnermostSumsBecomeGroupedRows) {
  int grouped = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const RandomFusion on = generateFusion(seed);
    GeneratorOptions offOptions;
    offOptions.groupedRows = false;
    const RandomFusion off = generateFusion(seed, offOptions);
    bool has = false;
    for (const Node& n : on.nodes) has = has || n.op == "grouped_rows";
    for (const Node& n : off.nodes) EXPECT_NE(n.op, "grouped_rows") << seed;
    if (!has) {
      EXPECT_EQ(renderScript(on), renderScript(off)) << seed;
    }
    grouped += has ? 1 : 0;
  }
  EXPECT_GT(grouped, 0);
}

TEST(FusionGeneratorTest, TheSameSeedGivesTheSameScript) {
  for (uint64_t seed : {0ull, 1ull, 977ull, 123456789ull}) {
    EXPECT_EQ(renderScript(generateFusion(seed)), renderScript(generateFusion(seed)));
  }
  EXPECT_NE(renderScript(generateFusion(1)), renderScript(generateFusion(2)));
}

TEST(FusionGeneratorTest, EveryFusionReadsAndRunsOnTheReference) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    readAndRun(generateFusion(seed));
    if (HasFailure()) return;
  }
}

TEST(FusionGeneratorTest, EveryShrinkCandidateReadsAndRuns) {
  for (uint64_t seed = 0; seed < 25; ++seed) {
    const RandomFusion fusion = generateFusion(seed);
    const std::vector<RandomFusion> candidates = shrinkCandidates(fusion);
    EXPECT_FALSE(candidates.empty()) << seed;
    for (const RandomFusion& c : candidates) {
      EXPECT_TRUE(c.nodes.size() < fusion.nodes.size() ||
                  c.outputs.size() < fusion.outputs.size() ||
                  c.options.size() < fusion.options.size());
      readAndRun(c);
      if (HasFailure()) return;
    }
  }
}

TEST(FusionGeneratorTest, CoversTheOpsAndLayoutsTheTesterIsFor) {
  std::map<std::string, int> ops;
  int aliases = 0, zeroDim = 0, withoutInputs = 0, withOptions = 0;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    const RandomFusion f = generateFusion(seed);
    bool anyInput = false;
    for (const Node& n : f.nodes) {
      ++ops[n.op];
      zeroDim += n.sizes.empty() ? 1 : 0;
      anyInput = anyInput || n.kind == Node::Kind::Input;
    }
    withoutInputs += anyInput ? 0 : 1;
    for (const Output& o : f.outputs) aliases += o.aliasInput >= 0 ? 1 : 0;
    withOptions += f.options.empty() ? 0 : 1;
  }
  for (const char* op : {"input",
                         "input_permuted",
                         "input_expanded",
                         "input_misaligned",
                         "input_strided",
                         "input_index",
                         "full",
                         "iota",
                         "cast",
                         "tanh",
                         "exp",
                         "sub_max",
                         "log_softmax",
                         "add",
                         "div",
                         "maximum",
                         "bitwise_and",
                         "logical_and",
                         "eq",
                         "gt",
                         "where",
                         "sum",
                         "max",
                         "min",
                         "broadcast_in_dim",
                         "expand",
                         "squeeze",
                         "reshape",
                         "permute",
                         "slice",
                         "slice_strided",
                         "pad",
                         "cat",
                         "take_along_axis",
                         "gather",
                         "index_select",
                         "in_place_update"}) {
    EXPECT_GE(ops[op], 10) << op;
  }
  EXPECT_GE(aliases, 50);
  EXPECT_GE(zeroDim, 50);
  EXPECT_GE(withoutInputs, 20);
  EXPECT_GE(withOptions, 300);
}

}  // namespace
}  // namespace fuserlab::difftest
