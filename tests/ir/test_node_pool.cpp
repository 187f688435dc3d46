// The node pool: freed IR nodes are reused by the next node of their size,
// and a fusion's nodes are still whole objects (a dropped segment fusion's
// memory serves the next one).
#include <gtest/gtest.h>

#include <set>

#include "core/ir/fusion.h"
#include "core/ir/node_pool.h"

namespace fuserlab::ir {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif
#else
constexpr bool kPooled = true;
#endif

TEST(NodePoolTest, ReusesAFreedNodeOfTheSameSize) {
  if (!kPooled) GTEST_SKIP() << "AddressSanitizer build: nodes bypass the pool";
  const size_t held = freeNodesOfSize(96);
  void* first = allocateNode(96);
  releaseNode(first, 96);
  EXPECT_EQ(freeNodesOfSize(96), held + 1);
  void* second = allocateNode(90);  // rounds to the same 96-byte class
  EXPECT_EQ(second, first);
  EXPECT_EQ(freeNodesOfSize(96), held);
  void* other = allocateNode(200);  // another class: not the freed node
  EXPECT_NE(other, first);
  releaseNode(second, 90);
  releaseNode(other, 200);
}

TEST(NodePoolTest, LargeNodesGoToTheAllocator) {
  void* big = allocateNode(4096);
  ASSERT_NE(big, nullptr);
  static_cast<char*>(big)[4095] = 1;  // the whole block is usable
  releaseNode(big, 4096);
  EXPECT_EQ(freeNodesOfSize(4096), 0u);
}

TEST(NodePoolTest, ADroppedFusionsNodesServeTheNextFusion) {
  if (!kPooled) GTEST_SKIP() << "AddressSanitizer build: nodes bypass the pool";
  auto build = [](Fusion& f) {
    TensorView* in = f.newTensorView(
        {f.newIterDomain(f.newScalar(DataType::Int), IterType::Iteration)}, DataType::Float);
    f.addInput(in);
    TensorView* out = f.newTensorView(
        {f.newIterDomain(in->logical()[0]->extent(), IterType::Iteration)}, DataType::Float);
    f.newExpr(ExprType::Unary, {in}, {out});
    f.addOutput(out);
    return out;
  };
  std::set<const void*> dropped;
  {
    auto f = std::make_unique<Fusion>();
    build(*f);
    for (const auto& v : f->vals()) dropped.insert(v.get());
    for (const auto& e : f->exprs()) dropped.insert(e.get());
  }
  Fusion next;
  TensorView* out = build(next);
  size_t reused = 0;
  for (const auto& v : next.vals()) reused += dropped.count(v.get());
  for (const auto& e : next.exprs()) reused += dropped.count(e.get());
  EXPECT_GT(reused, 0u);
  // The reused memory holds proper objects of the new fusion.
  EXPECT_EQ(out->definition()->output(0), out);
  EXPECT_EQ(out->fusion(), &next);
}

}  // namespace
}  // namespace fuserlab::ir
