// strideZeroOnContiguousAxis: a view made by a kernel-free segment with
// stride 0 where its tensor declares a contiguous axis, which binding a
// kernel's input refuses; the executor copies such a view first.
#include <gtest/gtest.h>

#include "core/ir/fusion.h"
#include "core/runtime/device_views.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;
using ir::IterType;
using ir::TensorView;

TensorView* tensorOfRank(ir::Fusion& fusion, int64_t rank, IterType last = IterType::Iteration) {
  std::vector<ir::IterDomain*> ids;
  for (int64_t i = 0; i < rank; ++i) {
    ids.push_back(fusion.newIterDomain(fusion.newScalar(DataType::Int),
                                       i + 1 == rank ? last : IterType::Iteration));
  }
  return fusion.newTensorView(ids, DataType::Float);
}

Tensor viewWithStrides(std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  Tensor storage = Tensor::empty(DataType::Float, {4096});
  return storage.asStrided(std::move(sizes), std::move(strides), 0);
}

// Seed 203349 (refused on an H200): a reshape of a slice of an expanded
// input is a view with stride 0 on an axis its tensor, an intermediate
// without an allocation domain, declares contiguous. The kernel reading it
// refused it; now the executor copies it first.
TEST(DeviceViewsTest, StrideZeroOnAContiguousAxisIsFound) {
  ir::Fusion fusion;
  const TensorView* tv = tensorOfRank(fusion, 3);
  ASSERT_TRUE(tv->contiguity().back().value_or(false));
  EXPECT_FALSE(strideZeroOnContiguousAxis(*tv, viewWithStrides({4, 16, 8}, {128, 8, 1})));
  const auto mismatch = strideZeroOnContiguousAxis(*tv, viewWithStrides({4, 16, 8}, {16, 1, 0}));
  ASSERT_TRUE(mismatch.has_value());
  EXPECT_NE(mismatch->find("[16, 1, 0]"), std::string::npos) << *mismatch;
}

TEST(DeviceViewsTest, StrideZeroOnABroadcastAxisIsFine) {
  ir::Fusion fusion;
  const TensorView* tv = tensorOfRank(fusion, 2, IterType::Broadcast);
  EXPECT_FALSE(strideZeroOnContiguousAxis(*tv, viewWithStrides({4, 8}, {1, 0})));
}

}  // namespace
}  // namespace fuserlab::runtime
