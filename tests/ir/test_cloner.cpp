#include <gtest/gtest.h>

#include "core/ir/cloner.h"
#include "core/ir/error.h"
#include "core/ir/printer.h"
#include "tests/ir/fusion_builder.h"

namespace fuserlab::ir {
namespace {

using testing::FusionBuilder;

std::vector<int64_t> exprIds(const std::vector<Expr*>& exprs) {
  std::vector<int64_t> ids;
  for (const Expr* e : exprs) ids.push_back(e->id());
  return ids;
}

std::vector<int64_t> idIds(const std::vector<IterDomain*>& ids) {
  std::vector<int64_t> out;
  for (const IterDomain* id : ids) out.push_back(id->id());
  return out;
}

// Position of a transform in its fusion's creation order (-1 for none).
int64_t transformIndex(const IterDomainTransform* t) {
  if (t == nullptr) return -1;
  const auto& all = t->outputs()[0]->fusion()->transforms();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].get() == t) return static_cast<int64_t>(i);
  }
  return -2;
}

// Everything but addresses, compared statement by statement in creation
// order; the printed IR is compared separately.
void expectSameStructure(const Fusion& a, const Fusion& b) {
  ASSERT_EQ(a.vals().size(), b.vals().size());
  for (size_t i = 0; i < a.vals().size(); ++i) {
    const Val* x = a.vals()[i].get();
    const Val* y = b.vals()[i].get();
    SCOPED_TRACE(x->name());
    EXPECT_EQ(y->fusion(), &b);
    EXPECT_EQ(x->kind(), y->kind());
    EXPECT_EQ(x->name(), y->name());
    EXPECT_EQ(x->id(), y->id());
    EXPECT_EQ(x->dtype(), y->dtype());
    EXPECT_EQ(x->scriptName(), y->scriptName());
    EXPECT_EQ(exprIds(x->uses()), exprIds(y->uses()));
    EXPECT_EQ(x->definition() ? x->definition()->id() : -1,
              y->definition() ? y->definition()->id() : -1);
    if (const auto* s = x->as<Scalar>()) {
      EXPECT_EQ(s->value(), y->as<Scalar>()->value());
    } else {
      const auto* tx = x->as<TensorView>();
      const auto* ty = y->as<TensorView>();
      const TensorDomain& dx = tx->domain();
      const TensorDomain& dy = ty->domain();
      EXPECT_EQ(idIds(dx.root), idIds(dy.root));
      EXPECT_EQ(idIds(dx.logical), idIds(dy.logical));
      EXPECT_EQ(idIds(dx.allocation), idIds(dy.allocation));
      EXPECT_EQ(idIds(dx.loop), idIds(dy.loop));
      EXPECT_EQ(dx.contiguity, dy.contiguity);
      EXPECT_EQ(tx->isCpuScalar(), ty->isCpuScalar());
    }
  }
  ASSERT_EQ(a.iterDomains().size(), b.iterDomains().size());
  for (size_t i = 0; i < a.iterDomains().size(); ++i) {
    const IterDomain* x = a.iterDomains()[i].get();
    const IterDomain* y = b.iterDomains()[i].get();
    SCOPED_TRACE(x->toString());
    EXPECT_EQ(y->fusion(), &b);
    EXPECT_EQ(x->toString(), y->toString());
    EXPECT_EQ(x->extent()->id(), y->extent()->id());
    EXPECT_EQ(x->hasExpandedExtent(), y->hasExpandedExtent());
    if (x->hasExpandedExtent()) {
      EXPECT_EQ(x->expandedExtent()->id(), y->expandedExtent()->id());
    }
    EXPECT_EQ(x->iterType(), y->iterType());
    EXPECT_EQ(x->parallelType(), y->parallelType());
    EXPECT_EQ(transformIndex(x->definition()), transformIndex(y->definition()));
    ASSERT_EQ(x->uses().size(), y->uses().size());
    for (size_t u = 0; u < x->uses().size(); ++u) {
      EXPECT_EQ(transformIndex(x->uses()[u]), transformIndex(y->uses()[u]));
    }
  }
  ASSERT_EQ(a.transforms().size(), b.transforms().size());
  for (size_t i = 0; i < a.transforms().size(); ++i) {
    const IterDomainTransform* x = a.transforms()[i].get();
    const IterDomainTransform* y = b.transforms()[i].get();
    EXPECT_EQ(x->toString(), y->toString());
    EXPECT_EQ(idIds(x->inputs()), idIds(y->inputs()));
    EXPECT_EQ(idIds(x->outputs()), idIds(y->outputs()));
    EXPECT_EQ(x->factor() ? x->factor()->id() : -1, y->factor() ? y->factor()->id() : -1);
    EXPECT_EQ(x->innerSplit(), y->innerSplit());
  }
  ASSERT_EQ(a.exprs().size(), b.exprs().size());
  for (size_t i = 0; i < a.exprs().size(); ++i) {
    const Expr* x = a.exprs()[i].get();
    const Expr* y = b.exprs()[i].get();
    EXPECT_EQ(y->fusion(), &b);
    EXPECT_EQ(x->id(), y->id());
    EXPECT_EQ(x->type(), y->type());
    EXPECT_EQ(x->attrs(), y->attrs());
    EXPECT_EQ(x->toString(), y->toString());
  }
  ASSERT_EQ(a.inputs().size(), b.inputs().size());
  for (size_t i = 0; i < a.inputs().size(); ++i) {
    EXPECT_EQ(a.inputs()[i]->id(), b.inputs()[i]->id());
  }
  ASSERT_EQ(a.outputs().size(), b.outputs().size());
  for (size_t i = 0; i < a.outputs().size(); ++i) {
    EXPECT_EQ(a.outputs()[i].val->id(), b.outputs()[i].val->id());
    EXPECT_EQ(a.outputs()[i].aliasOf ? a.outputs()[i].aliasOf->id() : -1,
              b.outputs()[i].aliasOf ? b.outputs()[i].aliasOf->id() : -1);
  }
}

std::string allDomains(const Fusion& fusion) {
  std::string out;
  for (const auto& val : fusion.vals()) {
    if (const auto* tv = val->as<TensorView>()) out += printDomains(*tv);
  }
  return out;
}

class ClonerTest : public ::testing::Test {
 protected:
  // A normalization-like fusion: cast, scalar input, reduction, broadcast,
  // a dead branch, an aliased output with a stride order.
  void buildNormalization() {
    t0_ = b_.input(2, DataType::BFloat16);
    t0_->setScriptName("T0");
    Scalar* scale = b_.scalarInput(DataType::Double);
    scale->setScriptName("S1");
    TensorView* t1 = b_.cast(t0_, DataType::Float);
    TensorView* t2 = b_.binary(BinaryOpType::Mul, t1, scale);
    TensorView* t3 = b_.sum(t2, {1});
    TensorView* t4 = b_.broadcast(t3, {false, true});
    TensorView* t5 = b_.binary(BinaryOpType::Sub, t2, t4);
    out_ = b_.cast(t5, DataType::BFloat16);
    b_.unary(UnaryOpType::Exp, t1);
    out_->setStrideOrder({0, 1});
    fusion_.addOutput(t3);
    fusion_.addOutput(out_, t0_);
  }

  // Reshape (root domain), expanded broadcast, seed 002's split/merge
  // allocation, a DID split on the loop, contiguity and a CPU scalar.
  void buildLayouts() {
    t0_ = b_.input(3, DataType::Float);
    t0_->setContiguity({false, true, true});
    TensorView* flat = b_.flatten(t0_);
    flat->setScriptName("T7");
    Scalar* n = b_.scalarInput(DataType::Int);
    TensorView* bcast = b_.broadcast(flat, {true, false});
    TensorView* expanded = b_.expand(bcast, {n, nullptr});
    TensorView* cpu = b_.input(0, DataType::Double);
    cpu->setCpuScalar(true);
    out_ = b_.binary(BinaryOpType::Mul, expanded, cpu);
    TensorView* arange = b_.inputWithSizes({6}, DataType::Float);
    arange->split(0, fusion_.constInt(2), /*innerSplit=*/false);
    arange->reorderLoop({1, 0});
    arange->merge(0);
    arange->setAllocationAsLoop();
    TensorView* sharded = b_.unary(UnaryOpType::Neg, arange);
    sharded->split(0, fusion_.constInt(2), /*innerSplit=*/false);
    sharded->loop()[0]->parallelize(ParallelType::DIDx);
    fusion_.addOutput(out_);
    fusion_.addOutput(sharded);
  }

  Fusion fusion_;
  FusionBuilder b_{fusion_};
  TensorView* t0_ = nullptr;
  TensorView* out_ = nullptr;
};

TEST_F(ClonerTest, ClonePrintsIdenticallyWithReductionAndAlias) {
  buildNormalization();
  std::unique_ptr<Fusion> clone = cloneFusion(fusion_);
  EXPECT_EQ(printFusionIr(*clone), printFusionIr(fusion_));
  expectSameStructure(fusion_, *clone);
}

TEST_F(ClonerTest, ClonePreservesRootAllocationExpandAndSharding) {
  buildLayouts();
  std::unique_ptr<Fusion> clone = cloneFusion(fusion_);
  const std::string printed = printFusionIr(fusion_);
  // The fixture covers what it claims to.
  EXPECT_NE(printed.find("root:"), std::string::npos);
  EXPECT_NE(printed.find(" ex i"), std::string::npos);
  EXPECT_NE(printed.find("(outer)"), std::string::npos);
  EXPECT_NE(printed.find("iDIDx"), std::string::npos);
  EXPECT_NE(printed.find("(cpu)"), std::string::npos);
  EXPECT_NE(printed.find("[False, True, True]"), std::string::npos);
  EXPECT_EQ(printFusionIr(*clone), printed);
  EXPECT_EQ(allDomains(*clone), allDomains(fusion_));
  expectSameStructure(fusion_, *clone);
}

TEST_F(ClonerTest, CloneOfACloneIsTheSame) {
  buildLayouts();
  std::unique_ptr<Fusion> clone = cloneFusion(*cloneFusion(fusion_));
  EXPECT_EQ(printFusionIr(*clone), printFusionIr(fusion_));
  expectSameStructure(fusion_, *clone);
}

TEST_F(ClonerTest, EmptyFusion) {
  std::unique_ptr<Fusion> clone = cloneFusion(fusion_);
  EXPECT_TRUE(clone->vals().empty());
  EXPECT_EQ(printFusionIr(*clone), printFusionIr(fusion_));
}

TEST_F(ClonerTest, NewStatementsInTheCloneContinueTheNaming) {
  buildNormalization();
  std::unique_ptr<Fusion> clone = cloneFusion(fusion_);
  EXPECT_EQ(clone->newScalar(DataType::Int)->name(), fusion_.newScalar(DataType::Int)->name());
  EXPECT_EQ(clone->newTensorView(std::vector<IterDomain*>{}, DataType::Float)->name(),
            fusion_.newTensorView(std::vector<IterDomain*>{}, DataType::Float)->name());
  EXPECT_EQ(clone->newIterDomain(clone->constInt(3), IterType::Iteration)->toString(),
            fusion_.newIterDomain(fusion_.constInt(3), IterType::Iteration)->toString());
}

TEST_F(ClonerTest, MutatingTheCloneLeavesTheOriginalUnchanged) {
  buildLayouts();
  const std::string before = printFusionIr(fusion_);
  const std::string domainsBefore = allDomains(fusion_);
  const size_t transforms = fusion_.transforms().size();
  CloneMap map;
  std::unique_ptr<Fusion> clone = cloneFusion(fusion_, &map);

  TensorView* c0 = map.clone(t0_);
  c0->split(1, clone->constInt(4));
  c0->setStrideOrder({0, 2, 1});
  c0->setContiguity({true, true, false});
  c0->logical()[0]->parallelize(ParallelType::DIDx);
  c0->setScriptName("renamed");
  map.clone(out_)->setCpuScalar(true);
  FusionBuilder cb(*clone);
  clone->addOutput(cb.unary(UnaryOpType::Exp, c0));

  EXPECT_EQ(printFusionIr(fusion_), before);
  EXPECT_EQ(allDomains(fusion_), domainsBefore);
  EXPECT_EQ(fusion_.transforms().size(), transforms);
  EXPECT_EQ(t0_->uses().size(), 1u);
  EXPECT_EQ(t0_->scriptName(), "");
  EXPECT_NE(printFusionIr(*clone), before);
}

TEST_F(ClonerTest, MapTakesOriginalsToTheirClones) {
  buildNormalization();
  CloneMap map;
  std::unique_ptr<Fusion> clone = cloneFusion(fusion_, &map);

  TensorView* c0 = map.clone(t0_);
  ASSERT_NE(c0, nullptr);
  EXPECT_NE(c0, t0_);
  EXPECT_EQ(c0->fusion(), clone.get());
  EXPECT_EQ(c0->name(), "T0");
  EXPECT_EQ(c0->scriptName(), "T0");
  EXPECT_EQ(map[t0_], c0);
  EXPECT_TRUE(c0->isFusionInput());

  Scalar* extent = t0_->logical()[1]->extent();
  EXPECT_EQ(map.clone(extent), c0->logical()[1]->extent());
  EXPECT_EQ(map.clone(t0_->logical()[1]), c0->logical()[1]);
  EXPECT_EQ(map[t0_->logical()[1]], c0->logical()[1]);
  EXPECT_EQ(map.clone(t0_->logical()), c0->logical());

  Expr* def = out_->definition();
  EXPECT_EQ(map.clone(def), map.clone(out_)->definition());
  EXPECT_EQ(map[def]->fusion(), clone.get());
  EXPECT_EQ(map.clone(def->inputs()), map[def]->inputs());
  EXPECT_EQ(clone->outputs()[1].aliasOf, c0);

  EXPECT_EQ(map[static_cast<const Val*>(nullptr)], nullptr);
  EXPECT_EQ(map.clone(static_cast<const Scalar*>(nullptr)), nullptr);
  EXPECT_EQ(map[static_cast<const IterDomain*>(nullptr)], nullptr);

  Fusion other;
  Scalar* stranger = other.newScalar(DataType::Int);
  EXPECT_THROW(map[stranger], InternalError);
}

TEST_F(ClonerTest, MapOfSplitMergeTransforms) {
  buildLayouts();
  CloneMap map;
  std::unique_ptr<Fusion> clone = cloneFusion(fusion_, &map);
  for (size_t i = 0; i < fusion_.transforms().size(); ++i) {
    const IterDomainTransform* t = fusion_.transforms()[i].get();
    EXPECT_EQ(map[t], clone->transforms()[i].get());
    EXPECT_EQ(map[t]->outputs(), map.clone(t->outputs()));
    EXPECT_EQ(map.clone(t->factor()), map[t]->factor());
  }
}

}  // namespace
}  // namespace fuserlab::ir
