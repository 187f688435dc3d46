// Splitting a cuBLASLt call whose batch axes no single stride walks
// (core/runtime/matmul_call.h): one call per outer index, pointers moved by
// that index's strides in A, B and D. No GPU needed: only addresses.
#include <gtest/gtest.h>

#include "core/runtime/matmul_call.h"

namespace fuserlab::runtime {
namespace {

TEST(MatmulCallTest, CollapsedStrideWalksDenseAndBroadcastAxes) {
  EXPECT_EQ(collapsedStride({2, 3}, {3 * 64, 64}), 64);
  EXPECT_EQ(collapsedStride({2, 3}, {0, 0}), 0);
  EXPECT_EQ(collapsedStride({1, 3}, {999, 5}), 5);               // size-1 axes take any stride
  EXPECT_FALSE(collapsedStride({2, 3}, {0, 1536}).has_value());  // B broadcast over the 2
}

TEST(MatmulCallTest, OuterBatchBecomesOneCallPerIndex) {
  // Large enough for every address the calls name (only addresses are used).
  alignas(16) static char memory[2 * 3 * 64 * 48 * 4];
  MatmulCall call;
  call.a = {memory, ir::DataType::BFloat16, 64, 32, 32, 1, 64 * 32};
  call.b = {memory, ir::DataType::BFloat16, 32, 48, 48, 1, 32 * 48};
  call.d = {memory, ir::DataType::Float, 64, 48, 48, 1, 64 * 48};
  call.batch = 3;
  call.outer.sizes = {2};
  call.outer.aStrides = {3 * 64 * 32};
  call.outer.bStrides = {0};
  call.outer.dStrides = {3 * 64 * 48};
  const std::vector<MatmulCall> calls = splitOuterBatch(call);
  ASSERT_EQ(calls.size(), 2u);
  const char* base = memory;
  EXPECT_EQ(calls[0].a.data, base);
  EXPECT_EQ(calls[1].a.data, base + 3 * 64 * 32 * 2);  // bf16: 2 bytes
  EXPECT_EQ(calls[1].b.data, base);                    // broadcast
  EXPECT_EQ(calls[1].d.data, base + 3 * 64 * 48 * 4);  // float: 4 bytes
  for (const MatmulCall& one : calls) {
    EXPECT_TRUE(one.outer.sizes.empty());
    EXPECT_EQ(one.batch, 3);
    EXPECT_EQ(one.a.batchStride, 64 * 32);
  }
  MatmulCall single = call;
  single.outer = {};
  EXPECT_EQ(splitOuterBatch(single).size(), 1u);
}

}  // namespace
}  // namespace fuserlab::runtime
