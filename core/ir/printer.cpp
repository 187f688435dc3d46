#include "core/ir/printer.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "core/ir/fusion.h"

namespace fuserlab::ir {
namespace {

std::string idList(const std::vector<IterDomain*>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ", ";
    out += ids[i]->toString();
  }
  return out + "]";
}

std::string contiguityList(const std::vector<std::optional<bool>>& flags) {
  std::string out = "[";
  for (size_t i = 0; i < flags.size(); ++i) {
    if (i) out += ", ";
    out += !flags[i] ? "None" : (*flags[i] ? "True" : "False");
  }
  return out + "]";
}

// The Split/Merge transforms between the tensor's root (or logical) domain
// and its logical, allocation and loop domains, in creation order. Found by
// walking back from those domains, so a transform whose outputs feed only
// further transforms (a merge between two splits) is printed too.
void appendTransforms(const Fusion& fusion, const TensorView& tv, std::ostringstream& out) {
  const auto& d = tv.domain();
  const auto& root = d.maybeRoot();
  std::unordered_set<const IterDomainTransform*> between;
  std::vector<const IterDomain*> stack;
  for (const auto* list : {&d.logical, &d.allocation, &d.loop}) {
    stack.insert(stack.end(), list->begin(), list->end());
  }
  while (!stack.empty()) {
    const IterDomain* id = stack.back();
    stack.pop_back();
    const IterDomainTransform* t = id->definition();
    if (t == nullptr || std::find(root.begin(), root.end(), id) != root.end() ||
        !between.insert(t).second) {
      continue;
    }
    stack.insert(stack.end(), t->inputs().begin(), t->inputs().end());
  }
  for (const auto& t : fusion.transforms()) {
    if (between.count(t.get())) out << "    " << t->toString() << "\n";
  }
}

}  // namespace

std::string printDomains(const TensorView& tv) {
  std::ostringstream out;
  const auto& d = tv.domain();
  out << "  " << tv.toString() << "\n";
  if (tv.hasDeviceMesh()) out << "    " << tv.deviceMesh().toString() << "\n";
  if (d.hasRoot()) out << "    root: " << idList(d.root) << "\n";
  out << "    logical: " << idList(d.logical) << "\n";
  appendTransforms(*tv.fusion(), tv, out);
  if (d.hasAllocation()) out << "    allocation: " << idList(d.allocation) << "\n";
  out << "    contiguity: " << contiguityList(d.contiguity) << "\n";
  if (d.loop != d.logical) out << "    loop: " << idList(d.loop) << "\n";
  return out.str();
}

std::string printFusionIr(const Fusion& fusion) {
  std::ostringstream out;
  out << "Inputs:\n";
  for (Val* in : fusion.inputs()) {
    if (auto* tv = in->as<TensorView>()) {
      out << "  " << tv->toString();
      if (tv->domain().hasAllocation()) {
        out << ", allocation " << idList(tv->domain().allocation);
      }
      out << ", contiguity " << contiguityList(tv->contiguity());
      if (tv->hasDeviceMesh()) out << ", " << tv->deviceMesh().toString();
      out << "\n";
    } else {
      out << "  " << in->name() << " (" << toString(in->dtype()) << ")\n";
    }
  }
  out << "Outputs:\n";
  for (const auto& o : fusion.outputs()) {
    out << "  ";
    if (auto* tv = o.val->as<TensorView>()) {
      out << tv->toString();
      if (tv->domain().hasAllocation()) {
        out << ", allocation " << idList(tv->domain().allocation);
      }
      if (tv->hasDeviceMesh()) out << ", " << tv->deviceMesh().toString();
    } else {
      out << o.val->name();
    }
    if (o.aliasOf) out << " (aliases " << o.aliasOf->name() << ")";
    out << "\n";
  }
  out << "\n%kernel {\n";
  for (Expr* expr : fusion.exprsForOutputs()) {
    out << expr->toString() << "\n";
  }
  out << "}\n";
  bool header = false;
  for (const auto& val : fusion.vals()) {
    const auto* tv = val->as<TensorView>();
    if (!tv) continue;
    const auto& d = tv->domain();
    if (!d.hasRoot() && !d.hasAllocation() && d.loop == d.logical && !tv->hasDeviceMesh()) {
      continue;
    }
    if (!header) {
      out << "\nDomains:\n";
      header = true;
    }
    out << printDomains(*tv);
  }
  return out.str();
}

}  // namespace fuserlab::ir
