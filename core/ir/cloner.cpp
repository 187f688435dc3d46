#include "core/ir/cloner.h"

#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

std::string describe(const Val* val) { return val->name(); }
std::string describe(const IterDomain* id) { return id->toString(); }
std::string describe(const Expr* expr) { return expr->toString(); }
std::string describe(const IterDomainTransform* t) { return t->toString(); }

template <typename Map, typename Key>
typename Map::mapped_type lookup(const Map& map, const Key* key) {
  if (key == nullptr) return nullptr;
  auto it = map.find(key);
  FL_ASSERT(it != map.end(), describe(key), " is not a statement of the cloned fusion");
  return it->second;
}

}  // namespace

Val* CloneMap::operator[](const Val* val) const { return lookup(vals, val); }

IterDomain* CloneMap::operator[](const IterDomain* id) const { return lookup(iterDomains, id); }

Expr* CloneMap::operator[](const Expr* expr) const { return lookup(exprs, expr); }

IterDomainTransform* CloneMap::operator[](const IterDomainTransform* transform) const {
  return lookup(transforms, transform);
}

Scalar* CloneMap::clone(const Scalar* scalar) const {
  return scalar ? (*this)[scalar]->as<Scalar>() : nullptr;
}

TensorView* CloneMap::clone(const TensorView* tv) const {
  return tv ? (*this)[tv]->as<TensorView>() : nullptr;
}

std::vector<IterDomain*> CloneMap::clone(const std::vector<IterDomain*>& ids) const {
  std::vector<IterDomain*> out;
  out.reserve(ids.size());
  for (const IterDomain* id : ids) out.push_back((*this)[id]);
  return out;
}

std::vector<Val*> CloneMap::clone(const std::vector<Val*>& vals) const {
  std::vector<Val*> out;
  out.reserve(vals.size());
  for (const Val* val : vals) out.push_back((*this)[val]);
  return out;
}

// Vals first (names and ids come from their creation order), then the
// IterDomains and transforms that reference their scalars, then the tensors'
// domains (which may hold IterDomains created after the tensor), then the
// Exprs in order (which rebuilds definitions and uses in the same order), and
// last the inputs and outputs.
std::unique_ptr<Fusion> cloneFusion(const Fusion& fusion, CloneMap* map) {
  auto clone = std::make_unique<Fusion>();
  clone->scriptLocations_ = fusion.scriptLocations_;
  CloneMap local;
  CloneMap& m = map ? *map : local;
  m = CloneMap{};
  m.vals.reserve(fusion.vals().size());
  m.iterDomains.reserve(fusion.iterDomains().size());
  m.transforms.reserve(fusion.transforms().size());
  m.exprs.reserve(fusion.exprs().size());

  for (const auto& val : fusion.vals()) {
    Val* copy = nullptr;
    if (const auto* scalar = val->as<Scalar>()) {
      copy = scalar->isConst() ? clone->newConstant(scalar->value(), scalar->dtype())
                               : clone->newScalar(scalar->dtype());
    } else {
      copy = clone->newTensorViewWithoutDomain(val->dtype());
    }
    FL_ASSERT(copy->id() == val->id() && copy->name() == val->name(), "clone of ", val->name(),
              " is named ", copy->name());
    copy->setScriptName(val->scriptName());
    copy->setScriptLocationIndex(val->scriptLocationIndex());
    m.vals.emplace(val.get(), copy);
  }

  for (const auto& id : fusion.iterDomains()) {
    IterDomain* copy =
        clone->newIterDomain(m.clone(id->extent()), id->iterType(), m.clone(id->expandedExtent()));
    copy->parallelize(id->parallelType());
    m.iterDomains.emplace(id.get(), copy);
  }

  for (const auto& t : fusion.transforms()) {
    m.transforms.emplace(t.get(),
                         clone->addTransform(t->kind(), m.clone(t->inputs()), m.clone(t->outputs()),
                                             m.clone(t->factor()), t->innerSplit()));
  }

  for (const auto& val : fusion.vals()) {
    const auto* tv = val->as<TensorView>();
    if (tv == nullptr) continue;
    const TensorDomain& d = tv->domain();
    TensorView* copy = m.clone(tv);
    Fusion::setDomain(copy, TensorDomain{m.clone(d.root), m.clone(d.logical), m.clone(d.allocation),
                                         m.clone(d.loop), d.contiguity});
    copy->setCpuScalar(tv->isCpuScalar());
    copy->setDeviceMesh(tv->deviceMesh());
  }

  for (const auto& expr : fusion.exprs()) {
    m.exprs.emplace(expr.get(), clone->newExpr(expr->type(), m.clone(expr->inputs()),
                                               m.clone(expr->outputs()), expr->attrs()));
  }

  for (const Val* in : fusion.inputs()) clone->addInput(m[in]);
  for (const FusionOutput& out : fusion.outputs()) {
    clone->addOutput(m[out.val], m[out.aliasOf]);
  }
  return clone;
}

}  // namespace fuserlab::ir
