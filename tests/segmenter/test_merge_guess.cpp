// The merger's scheduler guess (SegmenterContext::guessMergeSchedulers) is a
// speed-up only: on fusions that segment into many groups through hundreds
// of merge tries (row and column reductions, segment_sets, both upcast
// strategies, two devices), segmenting with and without it gives the same
// merge log, decision for decision and reason for reason, the same groups
// with the same schedulers and params, and the same edges.
#include <gtest/gtest.h>

#include <sstream>

#include "segmenter_fixture.h"

namespace fuserlab::segmenter {
namespace {

using testing_support::readFusion;
using testing_support::shape;

enum class Shape { SegmentSets, RowAndColumn };

// A normalization-like chain of `ops` ops on a float upcast of a bf16 input:
// a row reduction, its broadcast and a sub every 25 ops (alternately over
// rows and columns for RowAndColumn), a segment_set every 40 ops for
// SegmentSets, and unary ops and muls between (bench_compile's segmented
// fusions).
std::string chain(int ops, Shape shape) {
  std::ostringstream s;
  s << "def fusion(fd : FusionDefinition) -> None :\n"
    << "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
       "dtype=DataType.BFloat16, is_cpu=False)\n"
    << "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n";
  const char* unary[] = {"exp", "tanh", "neg", "abs", "sigmoid"};
  int last = 1, next = 2, emitted = 1;
  while (emitted < ops - 1) {
    if (shape == Shape::SegmentSets && emitted % 40 == 0) {
      s << "    T" << next << " = fd.ops.segment_set(T" << last << ")\n";
      last = next++;
      ++emitted;
    } else if (emitted % 25 == 0) {
      const bool column = shape == Shape::RowAndColumn && (emitted / 25) % 2 == 1;
      s << "    T" << next << " = fd.ops.sum(T" << last << ", dims=[" << (column ? 0 : 1) << "])\n"
        << "    T" << next + 1 << " = fd.ops.broadcast(T" << next
        << ", is_broadcast_dim=" << (column ? "[True, False]" : "[False, True]") << ")\n"
        << "    T" << next + 2 << " = fd.ops.sub(T" << last << ", T" << next + 1 << ")\n";
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

// Everything segmentation decided, as text: the log and each group.
struct Outcome {
  std::vector<std::string> log;
  std::vector<std::string> groups;
  std::vector<std::string> edges;
  int merges = 0;
  int refused = 0;
  int regions = 0;  //!< regions tried as one group
};

Outcome segmentWith(const std::string& script, const std::string& device,
                    segmenter::UpcastStrategy upcast, bool guess, int64_t rows, int64_t columns,
                    bool shortcut = true) {
  ir::ExpressionEvaluator evaluator;
  std::unique_ptr<ir::Fusion> fusion = readFusion(script);
  const scheduler::DeviceSpec spec = *scheduler::findBuiltinDevice(device);
  SegmenterContext context;
  context.device = &spec;
  context.evaluator = &evaluator;
  context.inputs =
      runtime::describeInputs(*fusion, {shape(ir::DataType::BFloat16, {rows, columns})}, evaluator);
  context.upcast = upcast;
  context.guessMergeSchedulers = guess;
  context.pointwiseShortcut = shortcut;
  std::vector<SegmenterDecision> log;
  const SegmentedFusion segmented = segmentFusion(std::move(fusion), context, &log);
  Outcome out;
  for (const SegmenterDecision& d : log) {
    std::string groups;
    for (int g : d.groups) groups += std::to_string(g) + ",";
    out.log.push_back(d.kind + " [" + groups + "] " + (d.accepted ? "accepted: " : "refused: ") +
                      d.reason);
    if (d.kind == "region") ++out.regions;
    if (d.kind == "merge" || d.kind == "final_merge") {
      ++out.merges;
      if (!d.accepted) ++out.refused;
    }
  }
  for (const SegmentedGroup& group : segmented.groups()) {
    std::string text = std::to_string(group.id) + " " +
                       std::string(scheduler::toString(group.choice.type)) + " " +
                       paramsToJson(group.choice.params).dump(-1) + " " +
                       group.choice.properties.dump(-1) + " exprs";
    for (const ir::Expr* expr : group.exprs) text += " " + expr->toString();
    for (const auto& r : group.choice.rejected) {
      text += "; not " + std::string(scheduler::toString(r.scheduler)) + ": " + r.reason;
    }
    out.groups.push_back(text);
  }
  for (const SegmentedEdge& edge : segmented.edges()) {
    out.edges.push_back(std::to_string(edge.from) + "->" + std::to_string(edge.to) + " " +
                        edge.val->name());
  }
  return out;
}

struct Case {
  Shape shape;
  segmenter::UpcastStrategy upcast;
  const char* device;
};

class MergeGuessTest : public testing::TestWithParam<Case> {};

TEST_P(MergeGuessTest, SameDecisionsWithAndWithoutTheGuess) {
  const Case c = GetParam();
  const std::string script = chain(120, c.shape);
  int refused = 0;
  int merges = 0;
  // Rows of 1024 floats fit every device's persistent budget; rows of 16384
  // floats fit none (other merges are refused). Between segment_sets, each
  // region is tried as one group first (a scheduler takes each: no merges
  // there); without segment_sets the groups merge level by level.
  for (int64_t columns : {1024, 16384}) {
    SCOPED_TRACE("columns " + std::to_string(columns));
    const Outcome guessed = segmentWith(script, c.device, c.upcast, true, 2048, columns);
    const Outcome ordered = segmentWith(script, c.device, c.upcast, false, 2048, columns);
    EXPECT_GT(guessed.merges + guessed.regions, 0);  // the guess was exercised
    if (c.shape == Shape::SegmentSets) {
      EXPECT_GT(guessed.regions, 0);
    }
    merges += guessed.merges;
    EXPECT_GT(guessed.groups.size(), 1u);
    EXPECT_EQ(guessed.log, ordered.log);
    EXPECT_EQ(guessed.groups, ordered.groups);
    EXPECT_EQ(guessed.edges, ordered.edges);
    refused += guessed.refused;
  }
  if (c.shape == Shape::RowAndColumn) {
    EXPECT_GT(merges, 50);
  }
  // Row and column reductions never share a kernel: refusals, with every
  // scheduler's reason, are compared too.
  if (c.shape == Shape::RowAndColumn) {
    EXPECT_GT(refused, 0);
  }
}

// The pointwise shortcut (SegmenterContext::pointwiseShortcut) is a speed-up
// only as well: with the guess on, deciding pointwise merges on the complete
// fusion gives the same log, groups and edges as extracting every merge.
TEST_P(MergeGuessTest, SameDecisionsWithAndWithoutThePointwiseShortcut) {
  const Case c = GetParam();
  const std::string script = chain(120, c.shape);
  for (int64_t columns : {1024, 16384}) {
    SCOPED_TRACE("columns " + std::to_string(columns));
    const Outcome quick = segmentWith(script, c.device, c.upcast, true, 2048, columns, true);
    const Outcome full = segmentWith(script, c.device, c.upcast, true, 2048, columns, false);
    EXPECT_GT(quick.merges + quick.regions, 0);
    EXPECT_EQ(quick.log, full.log);
    EXPECT_EQ(quick.groups, full.groups);
    EXPECT_EQ(quick.edges, full.edges);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Chains, MergeGuessTest,
    testing::Values(Case{Shape::SegmentSets, segmenter::UpcastStrategy::Privatize, "h100"},
                    Case{Shape::RowAndColumn, segmenter::UpcastStrategy::Privatize, "h100"},
                    Case{Shape::RowAndColumn, segmenter::UpcastStrategy::Forward, "h100"},
                    Case{Shape::SegmentSets, segmenter::UpcastStrategy::Forward, "v100"},
                    Case{Shape::RowAndColumn, segmenter::UpcastStrategy::Privatize, "v100"}));

}  // namespace
}  // namespace fuserlab::segmenter
