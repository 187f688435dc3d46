// Deep copy of a Fusion. The clone is indistinguishable from the original in
// everything but addresses: every Val, IterDomain, Split/Merge and Expr is
// recreated in the original's creation order, so names (T3, i2), ids, uses
// and printed IR are identical, and a CloneMap takes any statement of the
// original to its counterpart. The two fusions share nothing: mutating one
// never changes the other.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::ir {

//! From the original's statements to the clone's. Lookups of nullptr give
//! nullptr (an absent expanded extent or split factor); a statement of another
//! fusion is an internal error. Only looked up, never iterated.
struct CloneMap {
  Val* operator[](const Val* val) const;
  IterDomain* operator[](const IterDomain* id) const;
  Expr* operator[](const Expr* expr) const;
  IterDomainTransform* operator[](const IterDomainTransform* transform) const;

  //! Typed lookups: the clone of a TensorView is a TensorView, and so on.
  Scalar* clone(const Scalar* scalar) const;
  TensorView* clone(const TensorView* tv) const;
  IterDomain* clone(const IterDomain* id) const { return (*this)[id]; }
  Expr* clone(const Expr* expr) const { return (*this)[expr]; }
  std::vector<IterDomain*> clone(const std::vector<IterDomain*>& ids) const;
  std::vector<Val*> clone(const std::vector<Val*>& vals) const;

  std::unordered_map<const Val*, Val*> vals;
  std::unordered_map<const IterDomain*, IterDomain*> iterDomains;
  std::unordered_map<const Expr*, Expr*> exprs;
  std::unordered_map<const IterDomainTransform*, IterDomainTransform*> transforms;
};

//! A deep copy of `fusion`; fills `map` (if given) from original to clone.
std::unique_ptr<Fusion> cloneFusion(const Fusion& fusion, CloneMap* map = nullptr);

}  // namespace fuserlab::ir
