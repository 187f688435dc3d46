#include "core/segmenter/upcast_privatization.h"

#include <algorithm>
#include <unordered_set>

#include "core/ir/error.h"

namespace fuserlab::segmenter {
namespace {

using ir::Expr;
using ir::TensorView;
using ir::Val;

bool isUpcast(const Expr* expr) {
  if (expr == nullptr || expr->type() != ir::ExprType::Cast) return false;
  const Val* in = expr->input(0);
  const Val* out = expr->output(0);
  return in->isA<TensorView>() && out->isA<TensorView>() && ir::isFloatingPoint(in->dtype()) &&
         ir::isFloatingPoint(out->dtype()) &&
         ir::sizeInBytes(out->dtype()) > ir::sizeInBytes(in->dtype());
}

// A fresh tensor shaped like `tv` (a cast output: no root domain), with its
// stride order if it has one.
TensorView* likeCastOutput(ir::Fusion& fusion, const TensorView& tv) {
  ir::TensorDomain domain;
  for (const ir::IterDomain* id : tv.logical()) {
    domain.logical.push_back(fusion.cloneIterDomain(id));
  }
  const auto& allocation = tv.domain().allocation;
  if (!allocation.empty() && allocation.size() == tv.logical().size() &&
      std::is_permutation(allocation.begin(), allocation.end(), tv.logical().begin())) {
    for (const ir::IterDomain* id : allocation) {
      size_t i = std::find(tv.logical().begin(), tv.logical().end(), id) - tv.logical().begin();
      domain.allocation.push_back(domain.logical[i]);
    }
    domain.contiguity = tv.contiguity();
  }
  return fusion.newTensorView(std::move(domain), tv.dtype());
}

std::vector<Expr*> liveUses(const Val* val, const std::unordered_set<const Expr*>& live) {
  std::vector<Expr*> uses;
  for (Expr* use : val->uses()) {
    if (live.count(use)) uses.push_back(use);
  }
  return uses;
}

std::string namesOf(const std::vector<Expr*>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i) out += i + 1 == exprs.size() ? " and " : ", ";
    out += exprs[i]->output(0)->name();
  }
  return out;
}

}  // namespace

std::vector<PrivatizedUpcast> privatizeUpcasts(ir::Fusion& fusion, const DecisionLog& log,
                                               const std::unordered_set<const ir::Expr*>& keep) {
  const std::vector<Expr*> exprs = fusion.exprsForOutputs();
  std::unordered_set<const Expr*> live(exprs.begin(), exprs.end());
  std::vector<PrivatizedUpcast> upcasts;
  std::vector<std::string> readers;  // per upcast: "T4 reads T9, ..."
  for (Expr* expr : exprs) {
    const std::vector<Val*> inputs = expr->inputs();
    for (Val* in : inputs) {
      auto* tv = in->as<TensorView>();
      if (tv == nullptr || !isUpcast(tv->definition()) || keep.count(tv->definition())) {
        continue;
      }
      const auto& current = expr->inputs();
      if (std::find(current.begin(), current.end(), in) == current.end()) {
        continue;  // read twice and already rewritten
      }
      const std::vector<Expr*> uses = liveUses(tv, live);
      if (uses.size() < 2 || uses.front() == expr) continue;
      Expr* cast = tv->definition();
      TensorView* copy = likeCastOutput(fusion, *tv);
      Expr* clone = fusion.newExpr(ir::ExprType::Cast, {cast->input(0)}, {copy}, cast->attrs());
      fusion.replaceExprInput(expr, tv, copy);
      live.insert(clone);
      auto it = std::find_if(upcasts.begin(), upcasts.end(),
                             [&](const auto& u) { return u.original == cast; });
      if (it == upcasts.end()) {
        upcasts.push_back({cast, {}});
        readers.emplace_back();
        it = upcasts.end() - 1;
      }
      it->copies.push_back(clone);
      std::string& text = readers[it - upcasts.begin()];
      text += (text.empty() ? "" : ", ") + expr->output(0)->name() + " now reads its own copy " +
              exprSummary(*clone);
    }
  }
  for (size_t i = 0; i < upcasts.size(); ++i) {
    const Expr* cast = upcasts[i].original;
    log.add("privatize", {}, true,
            "upcast " + exprSummary(*cast) + " from " +
                std::string(ir::toString(cast->input(0)->dtype())) + " to " +
                std::string(ir::toString(cast->output(0)->dtype())) + " has " +
                std::to_string(upcasts[i].copies.size() + 1) + " uses; " + readers[i] +
                ", so a segment boundary can fall on the narrower " + cast->input(0)->name());
  }
  return upcasts;
}

void revertPrivatizedUpcasts(ir::Fusion& fusion, const std::vector<PrivatizedUpcast>& upcasts,
                             std::vector<CandidateGroup>& groups, const DecisionLog& log) {
  for (const PrivatizedUpcast& upcast : upcasts) {
    std::vector<Expr*> all = {upcast.original};
    all.insert(all.end(), upcast.copies.begin(), upcast.copies.end());
    const std::string what = "upcast " + exprSummary(*upcast.original);
    const std::string narrow = upcast.original->input(0)->name();
    std::vector<int> apart;
    for (CandidateGroup& group : groups) {
      std::vector<Expr*> here;
      for (Expr* expr : group.exprs) {
        if (std::find(all.begin(), all.end(), expr) != all.end()) {
          here.push_back(expr);
        }
      }
      if (here.empty()) continue;
      if (here.size() == 1) {
        apart.push_back(group.id);
        continue;
      }
      Expr* keep = here.front();
      for (Expr* expr : here) {
        if (expr->output(0)->isFusionOutput()) {
          keep = expr;
          break;
        }
      }
      std::vector<Expr*> removed;
      for (Expr* expr : here) {
        if (expr != keep) removed.push_back(expr);
      }
      log.add("revert_privatize", {group.id}, true,
              "copies " + namesOf(here) + " of " + what + " met in group " +
                  std::to_string(group.id) + "; readers of " + namesOf(removed) + " now read " +
                  keep->output(0)->name() + " and the extra casts are removed");
      for (Expr* expr : removed) {
        fusion.replaceAllUsesWith(expr->output(0), keep->output(0));
        group.exprs.erase(std::find(group.exprs.begin(), group.exprs.end(), expr));
        fusion.removeExpr(expr);
      }
    }
    if (apart.size() > 1) {
      std::string ids;
      for (size_t i = 0; i < apart.size(); ++i) {
        ids += (i ? ", " : "") + std::to_string(apart[i]);
      }
      log.add("revert_privatize", apart, false,
              "copies of " + what + " stay private in groups " + ids +
                  ": each of those segments reads the narrower " + narrow + " and casts it itself");
    }
  }
}

}  // namespace fuserlab::segmenter
