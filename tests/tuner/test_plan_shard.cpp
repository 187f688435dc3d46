// Campaign plans and shards (issue 48 items 2 and 4): a plan file's fusions
// x sizes and a record file's lines become items, once each; K/N shards
// partition any plan exactly; K/N come from --shard or the environment of a
// Slurm array, torchrun or mpirun.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/ir/error.h"
#include "tuner/plan.h"
#include "tuner/shard.h"

namespace fuserlab::tuner {
namespace {

TEST(PlanTest, PlanFileExpandsFusionsTimesSizesWithScriptsBesideThePlan) {
  const std::string text = R"({"format": 1, "fusions": [
    {"script": "ln.py", "fusion": "layer_norm", "sizes": ["16x1600:bf16", "16x3200:bf16"]},
    {"script": "/abs/silu.py"},
    {"script": "ln.py", "fusion": "layer_norm", "sizes": ["16x1600:bf16"]}]})";
  const auto items = parsePlan(text, "plan.json", "/campaign");
  ASSERT_EQ(items.size(), 3u);  // the repeated size set is one item
  EXPECT_EQ(items[0].script, "/campaign/ln.py");
  EXPECT_EQ(items[0].fusion, "layer_norm");
  EXPECT_EQ(items[0].inputs, "16x1600:bf16");
  EXPECT_EQ(items[1].inputs, "16x3200:bf16");
  EXPECT_EQ(items[2].script, "/abs/silu.py");
  EXPECT_FALSE(items[2].inputs.has_value());  // its inputs block
  EXPECT_TRUE(items[2].segmentHashes.empty());
}

TEST(PlanTest, RecordLinesBecomeOneItemPerFusionAndSizesWithTheirSegments) {
  const std::string text =
      R"({"script": "/w/a.py", "fusion": "f", "inputs": null, "structure_hash": "aa"})"
      "\n"
      R"({"script": "/w/a.py", "fusion": "f", "inputs": null, "structure_hash": "bb"})"
      "\n"
      "\n"
      R"({"script": "/w/a.py", "fusion": "f", "inputs": "8x8:f32", "structure_hash": "aa"})"
      "\n"
      R"({"script": "/w/a.py", "fusion": "f", "inputs": null, "structure_hash": "aa"})"
      "\n";
  const auto items = parsePlan(text, "met.jsonl", "/w");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].segmentHashes, (std::set<std::string>{"aa", "bb"}));
  EXPECT_FALSE(items[0].inputs.has_value());
  EXPECT_EQ(items[1].inputs, "8x8:f32");
  EXPECT_EQ(items[1].segmentHashes, (std::set<std::string>{"aa"}));
}

TEST(PlanTest, MalformedEntriesNameTheirLine) {
  try {
    parsePlan("{\"script\": \"a.py\"}\n{\"fusion\": 3}\n", "met.jsonl", "");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find("met.jsonl line 2"), std::string::npos) << error.message();
  }
  EXPECT_THROW(parsePlan("not json\n", "x", ""), UserError);
  EXPECT_THROW(parsePlan("\n\n", "x", ""), UserError);
  EXPECT_THROW(parsePlan(R"({"fusions": [{"script": "a.py", "sizes": []}]})", "p", ""), UserError);
}

TEST(ShardTest, ShardsPartitionEveryPlanExactly) {
  for (size_t items = 0; items < 20; ++items) {
    for (int n = 1; n <= 6; ++n) {
      std::multiset<size_t> all;
      size_t largest = 0, smallest = items;
      for (int k = 0; k < n; ++k) {
        const auto taken = shardItems(items, Shard{k, n, "test"});
        all.insert(taken.begin(), taken.end());
        largest = std::max(largest, taken.size());
        smallest = std::min(smallest, taken.size());
      }
      ASSERT_EQ(all.size(), items) << items << " items, " << n << " shards";
      for (size_t i = 0; i < items; ++i) EXPECT_EQ(all.count(i), 1u);
      EXPECT_LE(largest - smallest, 1u);  // balanced to one item
    }
  }
}

TEST(ShardTest, ParseShardChecksItsRange) {
  const Shard s = parseShard("1/4");
  EXPECT_EQ(s.index, 1);
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.text(), "1/4");
  for (const char* bad : {"4/4", "1", "-1/4", "1/0", "a/b", "1/4/2"}) {
    EXPECT_THROW(parseShard(bad), UserError) << bad;
  }
}

TEST(ShardTest, EnvironmentOfSlurmTorchrunAndMpi) {
  std::map<std::string, std::string> env;
  const Environment lookup = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  Shard none = shardFromEnvironment(lookup);
  EXPECT_EQ(none.count, 1);
  EXPECT_EQ(none.index, 0);

  // sbatch --array=1-4: ids 1..4, min 1, count 4 -> shards 0..3.
  env = {{"SLURM_ARRAY_TASK_ID", "3"},
         {"SLURM_ARRAY_TASK_COUNT", "4"},
         {"SLURM_ARRAY_TASK_MIN", "1"},
         {"RANK", "0"},
         {"WORLD_SIZE", "2"}};
  Shard slurm = shardFromEnvironment(lookup);
  EXPECT_EQ(slurm.index, 2);
  EXPECT_EQ(slurm.count, 4);
  EXPECT_EQ(slurm.origin, "SLURM_ARRAY_TASK_ID");
  env["SLURM_ARRAY_TASK_ID"] = "9";  // a stepped array: refused, not guessed
  EXPECT_THROW(shardFromEnvironment(lookup), UserError);
  env.erase("SLURM_ARRAY_TASK_COUNT");
  EXPECT_THROW(shardFromEnvironment(lookup), UserError);

  env = {{"RANK", "1"}, {"WORLD_SIZE", "2"}};
  Shard torch = shardFromEnvironment(lookup);
  EXPECT_EQ(torch.index, 1);
  EXPECT_EQ(torch.count, 2);
  env = {{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "3"}};
  Shard mpi = shardFromEnvironment(lookup);
  EXPECT_EQ(mpi.index, 2);
  EXPECT_EQ(mpi.origin, "OMPI_COMM_WORLD_RANK");
  env = {{"RANK", "2"}, {"WORLD_SIZE", "2"}};
  EXPECT_THROW(shardFromEnvironment(lookup), UserError);
  env = {{"RANK", "x"}, {"WORLD_SIZE", "2"}};
  EXPECT_THROW(shardFromEnvironment(lookup), UserError);
}

}  // namespace
}  // namespace fuserlab::tuner
