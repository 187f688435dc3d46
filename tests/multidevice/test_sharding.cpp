// Sharding helpers: an outer split by the mesh size with the outer axis DIDx.
#include <gtest/gtest.h>

#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/multidevice/sharding.h"

namespace fuserlab::multidevice {
namespace {

using ir::DataType;
using ir::IterType;

class ShardingTest : public ::testing::Test {
 protected:
  ir::TensorView* input(const std::vector<int64_t>& sizes) {
    std::vector<ir::IterDomain*> ids;
    for (int64_t size : sizes) {
      ids.push_back(fusion_.newIterDomain(fusion_.constInt(size), IterType::Iteration));
    }
    ir::TensorView* tv = fusion_.newTensorView(ids, DataType::Float);
    fusion_.addInput(tv);
    return tv;
  }
  ir::Fusion fusion_;
  ir::ExpressionEvaluator evaluator_;
};

TEST_F(ShardingTest, UnshardedTensorKeepsItsShape) {
  ir::TensorView* tv = input({8, 6});
  tv->setDeviceMesh(ir::DeviceMesh::forCount(2));
  EXPECT_FALSE(isSharded(tv));
  EXPECT_EQ(shardedAxis(tv), -1);
  EXPECT_EQ(localShape(*tv, evaluator_, 1), (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(describeSharding(tv), "replicated on mesh{0 1}");
}

TEST_F(ShardingTest, OuterSplitShardsTheAxis) {
  ir::TensorView* tv = input({8, 6});
  tv->setDeviceMesh(ir::DeviceMesh::forCount(2));
  shardOuter(tv, 1);
  ASSERT_EQ(tv->loop().size(), 3u);
  EXPECT_EQ(tv->loop()[1]->parallelType(), ir::ParallelType::DIDx);
  EXPECT_TRUE(isSharded(tv));
  EXPECT_EQ(shardedAxis(tv), 1);
  EXPECT_EQ(shardedLogicalId(tv), tv->logical()[1]);
  EXPECT_EQ(localShape(*tv, evaluator_, 0), (std::vector<int64_t>{8, 3}));
  EXPECT_THROW(localShape(*tv, evaluator_, 5), UserError);
}

TEST_F(ShardingTest, DidOnALogicalAxisIsAShardOfOne) {
  // The older nvFuser form: shape [d, ...], axis 0 parallelized directly.
  ir::TensorView* tv = input({4, 5});
  tv->setDeviceMesh(ir::DeviceMesh::forCount(4));
  tv->loop()[0]->parallelize(ir::ParallelType::DIDx);
  EXPECT_EQ(shardedAxis(tv), 0);
  EXPECT_EQ(localShape(*tv, evaluator_, 3), (std::vector<int64_t>{1, 5}));
}

TEST_F(ShardingTest, UnevenShardIsAUserError) {
  ir::TensorView* tv = input({7});
  tv->setDeviceMesh(ir::DeviceMesh::forCount(2));
  shardOuter(tv, 0);
  EXPECT_THROW(localShape(*tv, evaluator_, 0), UserError);
}

TEST_F(ShardingTest, ShardingWithoutAMeshIsAUserError) {
  ir::TensorView* tv = input({8});
  EXPECT_THROW(shardOuter(tv, 0), UserError);
  tv->setDeviceMesh(ir::DeviceMesh::forCount(2));
  shardOuter(tv, 0);
  EXPECT_THROW(shardOuter(tv, 1), UserError);  // already sharded on DIDx
}

}  // namespace
}  // namespace fuserlab::multidevice
