// The multi-device passes on seed 004's cases: sharding propagation (linear
// weight sharded on the output and on the input features, residual add
// backward propagation, reshape splitting and merging the sharded axis),
// resharding sets with their communication, the sharded axis moved outermost
// for communication, and allocation domains with the DID split.
#include <gtest/gtest.h>

#include "core/ir/cloner.h"
#include "core/multidevice/communication.h"
#include "core/multidevice/sharding.h"
#include "core/passes/decompose_reshardings.h"
#include "core/passes/finalize_multidevice_domains.h"
#include "core/passes/pipeline.h"
#include "core/passes/propagate_shardings.h"
#include "core/passes/reorder_sharded_axis.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

using multidevice::describeSharding;

class MultidevicePassesTest : public PassFixture {
 protected:
  // Runs the four multi-device passes in pipeline order; returns the records.
  std::vector<PassRecord> runAll() {
    std::vector<PassRecord> records;
    records.push_back(run(PropagateShardingsPass()));
    records.push_back(run(DecomposeReshardingsPass()));
    records.push_back(run(ReorderShardedAxisPass()));
    records.push_back(run(FinalizeMultideviceDomainsPass()));
    return records;
  }

  // The sharding of the tensor defining output `index`.
  std::string outputSharding(size_t index) const {
    return describeSharding(fusion_->outputs().at(index).val->as<ir::TensorView>());
  }

  // The communication of every resharding set, in order.
  std::vector<std::string> communications() const {
    std::vector<std::string> out;
    for (ir::Expr* expr : fusion_->exprsForOutputs()) {
      if (!multidevice::isReshardingSet(expr)) continue;
      out.emplace_back(multidevice::toString(multidevice::classifyResharding(
          expr->input(0)->as<ir::TensorView>(), expr->output(0)->as<ir::TensorView>())));
    }
    return out;
  }
};

TEST_F(MultidevicePassesTest, LinearWeightShardedOnOutputFeatures) {
  read(R"(import nvfuser
inp = fd.define_tensor(shape=[2, 8], contiguity=True, dtype=DataType.Float)
w = fd.define_tensor(shape=[6, 8], contiguity=True, dtype=DataType.Float)
out = fd.ops.linear(inp, w)
fd.add_output(out)
mesh = nvfuser.DeviceMesh(range(2))
inp.set_device_mesh(mesh)
w.set_device_mesh(mesh)
w.outer_split(0, 2)
w.axis(0).parallelize(nvfuser.ParallelType.mesh_x)
)");
  std::vector<PassRecord> records = runAll();
  EXPECT_EQ(outputSharding(0), "sharded on axis 1 (iS5{6}) over mesh{0 1}");
  EXPECT_TRUE(communications().empty());
  ASSERT_EQ(records[0].rewrites.size(), 1u);
  EXPECT_NE(records[0].rewrites[0].find("from T1"), std::string::npos) << records[0].rewrites[0];
  // Allocation carries the DID split: [iS{2}, iDIDx{2}, iS{3}].
  const auto* out = fusion_->outputs()[0].val->as<ir::TensorView>();
  ASSERT_EQ(out->domain().allocation.size(), 3u);
  EXPECT_TRUE(out->domain().allocation[1]->isDeviceDim());
}

TEST_F(MultidevicePassesTest, LinearWeightShardedOnInputFeaturesIsPartial) {
  read(R"(import nvfuser
inp = fd.define_tensor(shape=[2, 8], contiguity=True, dtype=DataType.Float)
w = fd.define_tensor(shape=[6, 8], contiguity=True, dtype=DataType.Float)
out = fd.ops.linear(inp, w)
fd.add_output(out)
mesh = nvfuser.DeviceMesh(range(2))
inp.set_device_mesh(mesh)
w.set_device_mesh(mesh)
inp.outer_split(1, 2)
inp.axis(1).parallelize(nvfuser.ParallelType.mesh_x)
w.outer_split(1, 2)
w.axis(1).parallelize(nvfuser.ParallelType.mesh_x)
)");
  std::vector<PassRecord> records = runAll();
  // The linear's result is a partial sum; an allreduce completes the output.
  EXPECT_EQ(communications(), (std::vector<std::string>{"allreduce"}));
  EXPECT_EQ(outputSharding(0), "replicated on mesh{0 1}");
  const auto* linearOut = fusion_->outputs()[0].val->definition()->input(0)->as<ir::TensorView>();
  EXPECT_TRUE(multidevice::isPartial(linearOut));
  ASSERT_EQ(records[1].rewrites.size(), 1u);
  EXPECT_NE(records[1].rewrites[0].find("allreduce"), std::string::npos) << records[1].rewrites[0];
}

TEST_F(MultidevicePassesTest, LoopSplitMlpNeedsOneAllreduce) {
  readFile("resources/examples/multidevice/loop_split_mlp.py");
  runAll();
  EXPECT_EQ(communications(), (std::vector<std::string>{"allreduce"}));
  // GELU runs on each device's slice of the hidden features.
  const std::string printed = ir();
  EXPECT_NE(printed.find("tanh"), std::string::npos);
  int shardedTanh = 0;
  for (ir::Expr* expr : fusion_->exprsForOutputs()) {
    if (expr->opName() == "tanh" &&
        multidevice::shardedAxis(expr->output(0)->as<ir::TensorView>()) == 2) {
      ++shardedTanh;
    }
  }
  EXPECT_EQ(shardedTanh, 1) << printed;
}

TEST_F(MultidevicePassesTest, ResidualAddShardsTheUnshardedInputBackward) {
  readFile("resources/examples/multidevice/residual_add.py");
  std::vector<PassRecord> records = runAll();
  EXPECT_EQ(describeSharding(tensor("x")), "sharded on axis 0 (iS0{8}) over mesh{0 1}");
  EXPECT_EQ(outputSharding(0), "sharded on axis 0 (iS6{8}) over mesh{0 1}");
  EXPECT_TRUE(communications().empty());
  EXPECT_NE(records[0].rewrites.at(0).find("input T0"), std::string::npos)
      << records[0].rewrites.at(0);
}

TEST_F(MultidevicePassesTest, ReshapeSplitsAndMergesTheShardedAxis) {
  readFile("resources/examples/multidevice/reshape_sharded_heads.py");
  runAll();
  // [2, 3, 20] sharded on 20 -> [2, 3, 4, 5] sharded on heads -> [2, 3, 20].
  for (ir::Expr* expr : fusion_->exprsForOutputs()) {
    if (expr->type() != ir::ExprType::Reshape) continue;
    const auto* out = expr->output(0)->as<ir::TensorView>();
    EXPECT_EQ(multidevice::shardedAxis(out), 2) << out->toString();
  }
  EXPECT_EQ(outputSharding(0), "sharded on axis 2 (iS24{20}) over mesh{0 1}");
  EXPECT_TRUE(communications().empty());
}

TEST_F(MultidevicePassesTest, ReshapeMergingAnInnerShardedAxisGathersFirst) {
  read(R"(import nvfuser
x = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.Float)
y = fd.ops.reshape(x, [24])
fd.add_output(y)
mesh = nvfuser.DeviceMesh(range(2))
x.set_device_mesh(mesh)
x.outer_split(1, 2)
x.axis(1).parallelize(nvfuser.ParallelType.mesh_x)
)");
  std::vector<PassRecord> records = runAll();
  EXPECT_EQ(communications(), (std::vector<std::string>{"allgather"}));
  EXPECT_EQ(outputSharding(0), "replicated on mesh{0 1}");
  // The gathered input's DIDx axis is moved outermost for the collective.
  ASSERT_EQ(records[2].rewrites.size(), 1u) << records[2].rewrites.size();
  EXPECT_NE(records[2].rewrites[0].find("moved outermost"), std::string::npos);
}

TEST_F(MultidevicePassesTest, MixedMeshlessTensorsAreAUserError) {
  read(R"(import nvfuser
x = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.Float)
y = fd.define_tensor(shape=[4, 6], contiguity=True, dtype=DataType.Float)
z = fd.ops.add(fd.ops.relu(x), fd.ops.relu(y))
fd.add_output(z)
x.set_device_mesh(nvfuser.DeviceMesh(range(2)))
)");
  run(PropagateShardingsPass());
  run(DecomposeReshardingsPass());
  expectUserError([&] { run(FinalizeMultideviceDomainsPass()); },
                  {"mesh on every tensor, or on none", "do not"});
}

TEST_F(MultidevicePassesTest, PipelineListsTheMultidevicePasses) {
  readFile("resources/examples/multidevice/residual_add.py");
  std::vector<PassRecord> records;
  auto result = runPasses(*fusion_, PassOptions{}, &records);
  std::vector<std::string> names;
  for (const PassRecord& r : records) names.push_back(r.name);
  auto at = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) - names.begin();
  };
  EXPECT_LT(at("propagate_shardings"), at("decompose_reshardings"));
  EXPECT_LT(at("decompose_reshardings"), at("reorder_sharded_axis"));
  EXPECT_LT(at("reorder_sharded_axis"), at("finalize_multidevice_domains"));
  EXPECT_LT(at("finalize_multidevice_domains"), static_cast<std::ptrdiff_t>(names.size()));
  EXPECT_FALSE(records[at("propagate_shardings")].rewrites.empty());
}

}  // namespace
}  // namespace fuserlab::passes::test
