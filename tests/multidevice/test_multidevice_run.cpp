// Multi-device runs on CPU ranks (threads): every bundled multi-device
// example, run on 2 and 4 ranks, gathers to what the unsharded CPU reference
// computes on the same random inputs; the communication segments are the
// ones the shardings call for; the thread communicator's collectives and
// its failure handling; localized segments.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/multidevice/local_fusion.h"
#include "core/reference/reference_run.h"
#include "core/runtime/multidevice_run.h"
#include "core/runtime/thread_communicator.h"
#include "core/tensor/result_check.h"
#include "tests/source_dir.h"

namespace fuserlab::runtime {
namespace {

std::string readExample(const std::string& name) {
  std::ifstream in(fuserlab::test::sourceDir() + "/resources/examples/multidevice/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The example with its device count (`num_devices = 2` or `d = 2`) set to
// `devices`, as a test script of nvFuser's reads it from the world size.
frontend::Script exampleOn(const std::string& name, int devices) {
  std::string text = readExample(name);
  text = std::regex_replace(text, std::regex(R"(\n(num_devices|d) = 2\n)"),
                            "\n$1 = " + std::to_string(devices) + "\n");
  return frontend::readScript(text, name);
}

struct Case {
  std::string file;
  int ranks;
  std::vector<std::string> collectives;  // the communication segments, in order
};

class MultiDeviceRunTest : public ::testing::TestWithParam<Case> {};

TEST_P(MultiDeviceRunTest, GatheredOutputsMatchTheUnshardedReference) {
  const Case& c = GetParam();
  const frontend::Script script = exampleOn(c.file, c.ranks);
  ASSERT_TRUE(script.inputs.has_value());
  const Arguments inputs = frontend::makeInputs(*script.inputs, 7);
  MultiDeviceProgram program(script.fusion(), inputs, c.ranks);

  std::vector<std::string> collectives;
  for (const report::SegmentReport& segment : program.compiled().report.segments) {
    if (segment.scheduler != "communication") continue;
    collectives.push_back(segment.properties.get("collective")->asString());
  }
  EXPECT_EQ(collectives, c.collectives);

  std::vector<CommunicationRecord> records;
  const auto perRank = runRanksAsThreads(program, inputs, &records);
  ASSERT_EQ(perRank.size(), static_cast<size_t>(c.ranks));
  EXPECT_EQ(records.size(), c.collectives.size());
  const std::vector<Tensor> gathered = program.gather(perRank);
  const std::vector<Tensor> reference = runReference(script.fusion(), inputs);
  ASSERT_EQ(gathered.size(), reference.size());
  for (size_t i = 0; i < gathered.size(); ++i) {
    EXPECT_EQ(gathered[i].sizes(), reference[i].sizes());
    const TensorCheck check = checkTensor(gathered[i], reference[i], "output");
    EXPECT_TRUE(check.passed) << c.file << " on " << c.ranks << " ranks: " << check.message;
  }
  // A sharded output differs between ranks: each holds its own block.
  if (c.file == "residual_add.py") {
    EXPECT_EQ(perRank[0][0].sizes()[0] * c.ranks, reference[0].sizes()[0]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, MultiDeviceRunTest,
    ::testing::Values(Case{"loop_split_mlp.py", 2, {"allreduce"}},
                      Case{"loop_split_mlp.py", 4, {"allreduce"}},
                      Case{"attention_heads.py", 2, {"allreduce"}},
                      Case{"attention_heads.py", 4, {"allreduce"}}, Case{"residual_add.py", 2, {}},
                      Case{"residual_add.py", 4, {}}, Case{"reshape_sharded_heads.py", 2, {}},
                      Case{"collectives.py", 2, {"broadcast", "reduce_scatter", "allgather"}},
                      Case{"collectives.py", 4, {"broadcast", "reduce_scatter", "allgather"}}),
    [](const auto& test) {
      std::string name = test.param.file.substr(0, test.param.file.find('.'));
      return name + "_" + std::to_string(test.param.ranks) + "ranks";
    });

TEST(MultiDeviceRunTest, AMeshThatIsNotTheRanksIsRefusedWithTheFix) {
  const frontend::Script script = exampleOn("loop_split_mlp.py", 2);
  const Arguments inputs = frontend::makeInputs(*script.inputs, 1);
  try {
    MultiDeviceProgram program(script.fusion(), inputs, 4);
    FAIL() << "a 2-device mesh ran on 4 ranks";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--ranks 2"), std::string::npos) << e.what();
  }
}

TEST(LocalFusionTest, ShardedConstantExtentsBecomeLocalAndShardingGoes) {
  const frontend::Script script = exampleOn("loop_split_mlp.py", 2);
  const Arguments inputs = frontend::makeInputs(*script.inputs, 1);
  MultiDeviceProgram program(script.fusion(), inputs, 2);
  const auto& groups = program.compiled().segmented->groups();
  ASSERT_FALSE(groups.empty());
  // Segment 0 reads w0 [32, 8] sharded on its output features.
  auto local = multidevice::localFusion(*groups[0].segment);
  EXPECT_FALSE(multidevice::isMultiDevice(*local));
  EXPECT_TRUE(multidevice::isMultiDevice(*groups[0].segment));
  bool sawW0 = false;
  for (const ir::Val* in : local->inputs()) {
    const auto* tv = in->as<ir::TensorView>();
    if (tv == nullptr || tv->rank() != 2) continue;
    const auto axes = tv->logicalNoReductions();
    if (axes[1]->extent()->constInt() == 8) {
      EXPECT_EQ(axes[0]->extent()->constInt(), 16) << tv->toString();
      sawW0 = true;
    }
    EXPECT_FALSE(tv->domain().hasAllocation());
  }
  EXPECT_TRUE(sawW0);
}

TEST(ThreadCommunicatorTest, CollectivesAgreeWithTheirDefinitions) {
  constexpr int kRanks = 3;
  auto group = std::make_shared<ThreadGroup>(kRanks);
  std::vector<std::vector<float>> gathered(kRanks), reduced(kRanks), scattered(kRanks),
      broadcasted(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r) {
    threads.emplace_back([&, r] {
      ThreadCommunicator comm(group, r);
      const std::vector<float> mine = {1.0f + r, 10.0f * (r + 1)};
      gathered[r].resize(2 * kRanks);
      comm.allgather(mine.data(), gathered[r].data(), 2 * sizeof(float));
      reduced[r].resize(2);
      comm.allreduce(mine.data(), reduced[r].data(), 2, ir::DataType::Float);
      std::vector<float> big(kRanks);
      for (int k = 0; k < kRanks; ++k) big[k] = static_cast<float>(100 * r + k);
      scattered[r].resize(1);
      comm.reduceScatter(big.data(), scattered[r].data(), 1, ir::DataType::Float);
      broadcasted[r] = {static_cast<float>(r), static_cast<float>(-r)};
      comm.broadcast(broadcasted[r].data(), 2 * sizeof(float), 2);
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(gathered[r], (std::vector<float>{1, 10, 2, 20, 3, 30}));
    EXPECT_EQ(reduced[r], (std::vector<float>{6, 60}));
    // Block r of the sum over ranks of [100q + k]: 300 + 3r.
    EXPECT_EQ(scattered[r], (std::vector<float>{300.0f + 3 * r}));
    EXPECT_EQ(broadcasted[r], (std::vector<float>{2, -2}));
  }
}

TEST(ThreadCommunicatorTest, ARankThatFailsReleasesTheOthers) {
  auto group = std::make_shared<ThreadGroup>(2);
  std::string error;
  std::thread waiting([&] {
    ThreadCommunicator comm(group, 0);
    float x = 1, y = 0;
    try {
      comm.allreduce(&x, &y, 1, ir::DataType::Float);
    } catch (const UserError& e) {
      error = e.what();
    }
  });
  ThreadCommunicator(group, 1).abort("rank 1: out of memory");
  waiting.join();
  EXPECT_NE(error.find("rank 1: out of memory"), std::string::npos) << error;
}

TEST(ThreadCommunicatorTest, SumsHalfAndBFloat16) {
  const uint16_t bfOne = 0x3f80, bfTwo = 0x4000;  // 1.0, 2.0
  uint16_t bf = bfOne;
  sumInto(&bf, &bfOne, 1, ir::DataType::BFloat16);
  EXPECT_EQ(bf, bfTwo);
  const uint16_t hOne = 0x3c00, hTwo = 0x4000;  // 1.0, 2.0
  uint16_t h = hOne;
  sumInto(&h, &hOne, 1, ir::DataType::Half);
  EXPECT_EQ(h, hTwo);
  // 0.5 + 1.5; 65504 + 8 rounds back to 65504, + 16 (a tie) to even,
  // which is infinity, as + 32 is; two subnormals (2^-24 each) sum exactly;
  // -1 + 1 is +0.
  const auto sumHalf = [](uint16_t x, uint16_t y) {
    sumInto(&x, &y, 1, ir::DataType::Half);
    return x;
  };
  EXPECT_EQ(sumHalf(0x3800, 0x3e00), 0x4000);
  EXPECT_EQ(sumHalf(0x7bff, 0x4800), 0x7bff);
  EXPECT_EQ(sumHalf(0x7bff, 0x4c00), 0x7c00);
  EXPECT_EQ(sumHalf(0x7bff, 0x5000), 0x7c00);
  EXPECT_EQ(sumHalf(0x0001, 0x0001), 0x0002);
  EXPECT_EQ(sumHalf(0xbc00, 0x3c00), 0x0000);
  bool b = true;
  EXPECT_THROW(sumInto(&b, &b, 1, ir::DataType::Bool), UserError);
}

}  // namespace
}  // namespace fuserlab::runtime
