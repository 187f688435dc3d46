#include "core/segmenter/segment_extraction.h"

#include "core/multidevice/sharding.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/segmenter/segmenter.h"

namespace fuserlab::segmenter {
namespace {

using ir::Expr;
using ir::ExprType;
using ir::Fusion;
using ir::IterDomain;
using ir::IterDomainTransform;
using ir::Scalar;
using ir::TensorDomain;
using ir::TensorView;
using ir::Val;

bool isTensorExpr(const Expr* expr) {
  return std::any_of(expr->outputs().begin(), expr->outputs().end(),
                     [](const Val* v) { return v->isA<TensorView>(); });
}

// The Extractor's tables, by the complete fusion's value, IterDomain and
// expr ids: kept between extractions on this thread (the merger extracts
// hundreds of groups of one fusion), grown as needed and reset entry by entry
// after each extraction (only those it touched).
struct ExtractionTables {
  std::vector<Val*> valCopies;
  std::vector<IterDomain*> idCopies;
  std::vector<uint8_t> valFlags;
  std::vector<uint8_t> inGroup;  // by expr id
  std::vector<size_t> touchedVals, touchedIds, touchedExprs;
  bool inUse = false;
};

ExtractionTables& extractionTables() {
  thread_local ExtractionTables tables;
  return tables;
}

// `leading` values first (a complete fusion's inputs or outputs, in their
// order), then the rest by creation.
void sortInterface(std::vector<Val*>& vals, const std::vector<Val*>& leading) {
  auto rank = [&](const Val* v) -> std::pair<int64_t, int64_t> {
    auto it = std::find(leading.begin(), leading.end(), v);
    if (it != leading.end()) return {0, it - leading.begin()};
    return {1, v->id()};
  };
  std::stable_sort(vals.begin(), vals.end(),
                   [&](const Val* a, const Val* b) { return rank(a) < rank(b); });
}

// Builds one segment fusion. Statements are created in the complete fusion's
// creation order where it matters for names (values), and on demand for
// IterDomains and transforms, which are memoized in the CloneMap.
class Extractor {
 public:
  Extractor(const CompleteFusionIndex& index, bool withCloneMap)
      : index_(index),
        complete_(index.fusion()),
        withCloneMap_(withCloneMap),
        tables_(extractionTables()),
        valCopies_(tables_.valCopies),
        idCopies_(tables_.idCopies),
        flags_(tables_.valFlags) {
    FL_ASSERT(!tables_.inUse, "segment extractions do not nest");
    if (valCopies_.size() < complete_.vals().size()) {
      valCopies_.resize(complete_.vals().size(), nullptr);
      flags_.resize(complete_.vals().size(), 0);
    }
    if (idCopies_.size() < complete_.iterDomains().size()) {
      idCopies_.resize(complete_.iterDomains().size(), nullptr);
    }
    if (tables_.inGroup.size() < complete_.exprs().size()) {
      tables_.inGroup.resize(complete_.exprs().size(), 0);
    }
    out_.fusion = std::make_unique<Fusion>();
    tables_.inUse = true;  // last: a constructor that throws runs no destructor
  }

  ~Extractor() {
    for (size_t i : tables_.touchedVals) {
      valCopies_[i] = nullptr;
      flags_[i] = 0;
    }
    for (size_t i : tables_.touchedIds) idCopies_[i] = nullptr;
    for (size_t i : tables_.touchedExprs) tables_.inGroup[i] = 0;
    tables_.touchedVals.clear();
    tables_.touchedIds.clear();
    tables_.touchedExprs.clear();
    tables_.inUse = false;
  }
  Extractor(const Extractor&) = delete;
  Extractor& operator=(const Extractor&) = delete;

  SegmentExtraction run(const std::vector<Expr*>& exprs, bool whole) {
    for (const Expr* expr : exprs) {
      const size_t e = exprSlot(expr);
      tables_.inGroup[e] = 1;
      tables_.touchedExprs.push_back(e);
      for (const Val* out : expr->outputs()) flag(out, kProduced);
    }

    // Tensors read from outside the group, in order of first use.
    std::vector<Val*> tensorInputs;
    if (whole) {
      tensorInputs = complete_.inputs();
    } else {
      for (const Expr* expr : exprs) {
        for (Val* in : expr->inputs()) {
          if (in->isA<TensorView>() && !(flags_[slot(in)] & (kProduced | kSeenInput))) {
            flag(in, kSeenInput);
            tensorInputs.push_back(in);
          }
        }
      }
    }
    for (Val* in : tensorInputs) {
      auto* tv = in->as<TensorView>();
      if (tv == nullptr || complete_.isInput(tv)) continue;
      flag(tv, kTrimmed);
      for (const IterDomain* id : tv->logicalNoReductions()) {
        for (Scalar* extent : {id->extent(), id->expandedExtent()}) {
          if (extent && !extent->isConst() && extent->definition()) {
            flag(extent, kAsLeaf);
          }
        }
      }
    }

    // Every value the segment holds, created in the complete fusion's order.
    std::vector<Val*> vals;
    auto need = [&](Val* val) {
      if (val == nullptr || (flags_[slot(val)] & kNeeded)) return;
      flag(val, kNeeded);
      vals.push_back(val);
    };
    for (Val* in : tensorInputs) need(in);
    for (const Expr* expr : exprs) {
      for (Val* in : expr->inputs()) need(in);
      for (Val* o : expr->outputs()) need(o);
    }
    if (whole) {
      for (const auto& o : complete_.outputs()) need(o.val);
    }
    std::sort(vals.begin(), vals.end(),
              [](const Val* a, const Val* b) { return a->id() < b->id(); });
    for (Val* val : vals) {
      if (auto* tv = val->as<TensorView>()) {
        tensor(tv);
      } else {
        scalar(val->as<Scalar>());
      }
    }

    for (Expr* expr : exprs) {
      if (!isTensorExpr(expr)) continue;  // cloned with the scalars they define
      exprCopies_.emplace_back(expr, out_.fusion->newExpr(expr->type(), copies(expr->inputs()),
                                                          copies(expr->outputs()), expr->attrs()));
    }

    if (whole) {
      addWholeInterface();
    } else {
      addInputs(tensorInputs);
      addOutputs(exprs);
    }
    if (withCloneMap_) fillCloneMap();
    return std::move(out_);
  }

 private:
  // Flags per value of the complete fusion (by id).
  static constexpr uint8_t kProduced = 1;    // written by the group
  static constexpr uint8_t kTrimmed = 2;     // an intermediate tensor input
  static constexpr uint8_t kAsLeaf = 4;      // an extent of one: a symbolic leaf
  static constexpr uint8_t kNeeded = 8;      // held by the segment
  static constexpr uint8_t kSeenInput = 16;  // listed as a tensor input

  size_t slot(const Val* val) const {
    const auto id = static_cast<size_t>(val->id());
    FL_ASSERT(id < valCopies_.size() && complete_.vals()[id].get() == val, val->name(),
              " is not a value of the complete fusion");
    return id;
  }
  size_t exprSlot(const Expr* expr) const {
    const auto id = static_cast<size_t>(expr->id());
    FL_ASSERT(id < complete_.exprs().size() && complete_.exprs()[id].get() == expr,
              expr->toString(), " is not an expr of the complete fusion");
    return id;
  }
  bool inGroup(const Expr* expr) const { return tables_.inGroup[exprSlot(expr)] != 0; }
  void flag(const Val* val, uint8_t bit) {
    const size_t i = slot(val);
    flags_[i] |= bit;
    tables_.touchedVals.push_back(i);
  }
  size_t slot(const IterDomain* id) const {
    const auto i = static_cast<size_t>(id->id());
    FL_ASSERT(i < idCopies_.size() && complete_.iterDomains()[i].get() == id, id->toString(),
              " is not an IterDomain of the complete fusion");
    return i;
  }

  //! The copy of `val` (nullptr for nullptr); it must have one.
  Val* copyOf(const Val* val) const {
    if (val == nullptr) return nullptr;
    Val* copy = valCopies_[slot(val)];
    FL_ASSERT(copy != nullptr, val->name(), " has no copy in the segment");
    return copy;
  }
  std::vector<Val*> copies(const std::vector<Val*>& vals) const {
    std::vector<Val*> out;
    out.reserve(vals.size());
    for (const Val* val : vals) out.push_back(copyOf(val));
    return out;
  }
  //! Sets the copy of `original` unless it has one (as a map's emplace).
  void mapVal(const Val* original, Val* copy) {
    const size_t i = slot(original);
    if (valCopies_[i] == nullptr) {
      valCopies_[i] = copy;
      tables_.touchedVals.push_back(i);
    }
  }
  void mapIterDomain(const IterDomain* original, IterDomain* copy) {
    const size_t i = slot(original);
    if (idCopies_[i] == nullptr) {
      idCopies_[i] = copy;
      tables_.touchedIds.push_back(i);
    }
  }

  // The CloneMap of the segment, from the tables above.
  void fillCloneMap() {
    ir::CloneMap& map = out_.toSegment;
    map.vals.reserve(tables_.touchedVals.size());
    map.iterDomains.reserve(tables_.touchedIds.size());
    map.exprs.reserve(exprCopies_.size());
    const auto& vals = complete_.vals();
    for (size_t i : tables_.touchedVals) {
      if (valCopies_[i] != nullptr) map.vals.emplace(vals[i].get(), valCopies_[i]);
    }
    const auto& ids = complete_.iterDomains();
    for (size_t i : tables_.touchedIds) {
      map.iterDomains.emplace(ids[i].get(), idCopies_[i]);
    }
    for (const auto& [original, copy] : exprCopies_) {
      map.exprs.emplace(original, copy);
    }
    map.transforms = std::move(transformCopies_);
  }

  void record(const Val* original, Val* copy) {
    mapVal(original, copy);
    if (!(original->isA<Scalar>() && original->as<Scalar>()->isConst())) {
      out_.copiedValues.emplace_back(copy, original);
    }
  }

  // Copies `root` and the scalars it is computed from, inputs before the
  // exprs that read them, in the order a depth-first walk meets them. On an
  // explicit stack: a cat of N inputs has an extent of N - 1 nested adds
  // (issue 43: 50,000 inputs overflowed 8 MB of stack here).
  Scalar* scalar(Scalar* root) {
    if (root == nullptr) return nullptr;
    std::vector<std::pair<Scalar*, size_t>> stack;  // (scalar, next input)
    // Copies a constant, a leaf or an already copied scalar at once;
    // otherwise its inputs come first.
    const auto visit = [&](Scalar* s) {
      if (valCopies_[slot(s)] != nullptr) return;
      Fusion& seg = *out_.fusion;
      if (s->isConst()) {
        record(s, seg.newConstant(s->value(), s->dtype()));
        return;
      }
      Expr* def = s->definition();
      if (def == nullptr || (flags_[slot(s)] & kAsLeaf)) {
        Scalar* copy = seg.newScalar(s->dtype());
        record(s, copy);
        out_.symbolicScalars.emplace_back(copy, s);
        return;
      }
      stack.emplace_back(s, 0);
    };
    visit(root);
    while (!stack.empty()) {
      Scalar* s = stack.back().first;
      Expr* def = s->definition();
      if (stack.back().second < def->inputs().size()) {
        Val* in = def->inputs()[stack.back().second++];
        FL_ASSERT(in->isA<Scalar>(), "scalar ", s->name(), " is computed from tensor ", in->name());
        visit(in->as<Scalar>());
        continue;
      }
      stack.pop_back();
      if (valCopies_[slot(s)] != nullptr) continue;  // a sibling output's expr
      std::vector<Val*> inputs;
      for (Val* in : def->inputs()) inputs.push_back(copyOf(in));
      std::vector<Val*> outputs;
      for (Val* o : def->outputs()) {
        FL_ASSERT(o->isA<Scalar>(), "scalar expr ", def->toString(), " has a tensor output");
        Scalar* copy = out_.fusion->newScalar(o->dtype());
        record(o, copy);
        outputs.push_back(copy);
      }
      exprCopies_.emplace_back(def,
                               out_.fusion->newExpr(def->type(), inputs, outputs, def->attrs()));
      out_.scalarExprs.push_back(def);
    }
    return copyOf(root)->as<Scalar>();
  }

  IterDomain* baseIterDomain(const IterDomain* id) {
    IterDomain* copy = out_.fusion->newIterDomain(scalar(id->extent()), id->iterType(),
                                                  scalar(id->expandedExtent()));
    copy->parallelize(id->parallelType());
    mapIterDomain(id, copy);
    return copy;
  }

  // The clone of `id`, replaying the Split/Merge transforms it comes from.
  IterDomain* iterDomain(const IterDomain* id) {
    if (IterDomain* copy = idCopies_[slot(id)]) return copy;
    const IterDomainTransform* def = id->definition();
    if (def == nullptr) return baseIterDomain(id);
    replay(def);
    IterDomain* copy = idCopies_[slot(id)];
    FL_ASSERT(copy != nullptr, "replaying ", def->toString(), " gave no ", id->toString());
    return copy;
  }

  void replay(const IterDomainTransform* t) {
    std::vector<IterDomain*> inputs;
    for (const IterDomain* in : t->inputs()) inputs.push_back(iterDomain(in));
    std::vector<IterDomain*> outputs;
    Fusion& seg = *out_.fusion;
    if (t->kind() == ir::TransformKind::Split) {
      auto [outer, inner] = seg.split(inputs[0], scalar(t->factor()), t->innerSplit());
      outputs = {outer, inner};
    } else {
      outputs = {seg.merge(inputs[0], inputs[1])};
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      const IterDomain* original = t->outputs()[i];
      outputs[i]->parallelize(original->parallelType());
      mapIterDomain(original, outputs[i]);
      // The replay computes the extent afresh; let later uses of the
      // complete fusion's extent scalar find it.
      mapVal(original->extent(), outputs[i]->extent());
    }
    transformCopies_.emplace(t, outputs[0]->definition());
  }

  std::vector<IterDomain*> iterDomains(const std::vector<IterDomain*>& ids) {
    std::vector<IterDomain*> out;
    out.reserve(ids.size());
    for (const IterDomain* id : ids) out.push_back(iterDomain(id));
    return out;
  }

  // Whether `id` is computed from `base` through transforms alone.
  static bool derivable(const IterDomain* id, const std::unordered_set<const IterDomain*>& base) {
    if (base.count(id)) return true;
    const IterDomainTransform* def = id->definition();
    if (def == nullptr) return false;
    return std::all_of(def->inputs().begin(), def->inputs().end(),
                       [&](const IterDomain* in) { return derivable(in, base); });
  }

  // An intermediate tensor entering the segment: its logical axes without
  // reductions, and its allocation and loop domains where they derive from
  // those.
  TensorDomain trimmedDomain(const TensorView* tv) {
    TensorDomain d;
    std::unordered_set<const IterDomain*> base;
    // A partial tensor (multi-device) keeps its sharded reduction axis: that
    // axis is what says each device holds a partial sum, which the
    // communication segment reading it completes.
    const IterDomain* partialAxis =
        multidevice::isPartial(tv) ? multidevice::shardedLogicalId(tv) : nullptr;
    for (const IterDomain* id : tv->logical()) {
      if (id->isReduction() && id != partialAxis) continue;
      IterDomain* copy = idCopies_[slot(id)];
      d.logical.push_back(copy != nullptr ? copy : baseIterDomain(id));
      base.insert(id);
    }
    auto derived = [&](const std::vector<IterDomain*>& ids,
                       std::vector<bool>* kept) -> std::vector<IterDomain*> {
      std::vector<IterDomain*> out;
      for (const IterDomain* id : ids) {
        if (kept) kept->push_back(!id->isReduction());
        const bool keepReduction = partialAxis != nullptr && derivable(id, base);
        if (id->isReduction() && !keepReduction) continue;
        if (!derivable(id, base)) return {};
        out.push_back(iterDomain(id));
      }
      return out;
    };
    const TensorDomain& original = tv->domain();
    // A partial tensor is allocated dense in its logical order (the runtime
    // holds one device's partial sums).
    if (original.hasAllocation() && partialAxis == nullptr) {
      std::vector<bool> kept;
      d.allocation = derived(original.allocation, &kept);
      if (!d.allocation.empty()) {
        for (size_t i = 0; i < kept.size(); ++i) {
          if (kept[i]) d.contiguity.push_back(original.contiguity.at(i));
        }
      }
    } else if (original.contiguity.size() == original.logical.size()) {
      for (size_t i = 0; i < original.logical.size(); ++i) {
        if (!original.logical[i]->isReduction()) {
          d.contiguity.push_back(original.contiguity[i]);
        }
      }
    }
    if (original.loop != original.logical) {
      d.loop = derived(original.loop, nullptr);
    }
    return d;
  }

  void tensor(TensorView* tv) {
    TensorDomain d;
    if (flags_[slot(tv)] & kTrimmed) {
      d = trimmedDomain(tv);
    } else {
      const TensorDomain& original = tv->domain();
      d.root = iterDomains(original.root);
      d.logical = iterDomains(original.logical);
      d.allocation = iterDomains(original.allocation);
      // Mostly the loop domain is the logical one: its copies are too.
      d.loop = original.loop == original.logical ? d.logical : iterDomains(original.loop);
      d.contiguity = original.contiguity;
    }
    TensorView* copy = out_.fusion->newTensorView(std::move(d), tv->dtype());
    copy->setDeviceMesh(tv->deviceMesh());
    copy->setCpuScalar(tv->isCpuScalar());
    copy->setScriptName(tv->scriptName());
    record(tv, copy);
  }

  void addInputs(const std::vector<Val*>& tensorInputs) {
    std::vector<Val*> inputs = tensorInputs;
    // Symbolic scalars that binding the tensor inputs leaves unbound.
    std::unordered_set<const Scalar*> bound;
    for (Val* in : tensorInputs) {
      const auto* copy = copyOf(in)->as<TensorView>();
      for (const IterDomain* id : copy->logicalNoReductions()) {
        bound.insert(id->extentForIteration());
      }
    }
    for (const auto& [copy, original] : out_.symbolicScalars) {
      if (!bound.count(copy)) inputs.push_back(original);
    }
    sortInterface(inputs, complete_.inputs());
    for (Val* in : inputs) {
      out_.fusion->addInput(copyOf(in));
      out_.inputs.push_back(in);
      stridesFromRunTime(in);
    }
  }

  // A segment input that another segment makes as a view of its own input
  // (a slice, select, permute, squeeze, expand, broadcast or reshape, which
  // run without a kernel) has that input's strides, not the dense layout its
  // IR declares: a strided slice's [12, 13] view has strides [80, 3]. It is
  // bound with the strides it has.
  void stridesFromRunTime(Val* in) {
    auto* copy = copyOf(in)->as<TensorView>();
    const Expr* definition = in->definition();
    if (copy == nullptr || complete_.isInput(in) || definition == nullptr) return;
    switch (definition->type()) {
      case ExprType::Slice:
      case ExprType::Permute:
      case ExprType::Squeeze:
      case ExprType::Expand:
      case ExprType::Broadcast:
      case ExprType::Reshape: break;
      default: return;
    }
    std::vector<std::optional<bool>> contiguity;
    for (const IterDomain* id : copy->maybeAllocation()) {
      if (id->isReduction()) continue;
      contiguity.push_back(id->isBroadcast() ? std::nullopt : std::optional<bool>(false));
    }
    copy->setContiguity(std::move(contiguity));
  }

  void addOutputs(const std::vector<Expr*>& exprs) {
    const std::vector<Val*> outputs = segmentOutputs(index_, exprs, tables_.inGroup);
    std::vector<Val*> segmentInputs = out_.fusion->inputs();
    for (Val* o : outputs) {
      Val* alias = nullptr;
      for (const auto& fo : complete_.outputs()) {
        if (fo.val == o && fo.aliasOf) {
          Val* aliasCopy = valCopies_[slot(fo.aliasOf)];
          if (aliasCopy != nullptr && std::find(segmentInputs.begin(), segmentInputs.end(),
                                                aliasCopy) != segmentInputs.end()) {
            alias = aliasCopy;
          }
        }
      }
      out_.fusion->addOutput(copyOf(o), alias);
      out_.outputs.push_back(o);
    }
  }

  void addWholeInterface() {
    for (Val* in : complete_.inputs()) {
      out_.fusion->addInput(copyOf(in));
      out_.inputs.push_back(in);
    }
    for (const auto& o : complete_.outputs()) {
      out_.fusion->addOutput(copyOf(o.val), copyOf(o.aliasOf));
      out_.outputs.push_back(o.val);
    }
  }

  const CompleteFusionIndex& index_;
  const Fusion& complete_;
  const bool withCloneMap_;
  SegmentExtraction out_;
  // Copies by the complete fusion's value and IterDomain ids (the CloneMap
  // is filled from them at the end, when asked for).
  ExtractionTables& tables_;
  std::vector<Val*>& valCopies_;
  std::vector<IterDomain*>& idCopies_;
  std::vector<uint8_t>& flags_;
  std::vector<std::pair<const Expr*, Expr*>> exprCopies_;
  std::unordered_map<const IterDomainTransform*, IterDomainTransform*> transformCopies_;
};

// Contiguous strides, innermost last, for `sizes`; expanded broadcast axes
// (stride 0) take no room.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes,
                                       const std::vector<bool>& expanded) {
  std::vector<int64_t> strides(sizes.size(), 0);
  int64_t running = 1;
  for (size_t k = sizes.size(); k-- > 0;) {
    if (expanded[k]) continue;
    strides[k] = running;
    running *= std::max<int64_t>(sizes[k], 1);
  }
  return strides;
}

// An intermediate tensor as the runtime allocates it: contiguous in its
// allocation order; the allocation shape when the allocation domain is not a
// permutation of the logical one (DID axes are local shards of size 1).
scheduler::TensorInputInfo describeIntermediate(const TensorView& tv,
                                                const ir::ExpressionEvaluator& evaluator) {
  scheduler::TensorInputInfo info;
  const auto& logical = tv.logicalNoReductions();
  const auto allocation = ir::noReductions(tv.maybeAllocation());
  const bool permutation =
      allocation.size() == logical.size() &&
      std::is_permutation(allocation.begin(), allocation.end(), logical.begin());
  std::vector<int64_t> sizes;
  std::vector<bool> expanded;
  for (const IterDomain* id : allocation) {
    sizes.push_back(permutation || !id->isDeviceDim() ? evaluator.evaluateExtent(id) : 1);
    expanded.push_back(id->isBroadcast() && id->hasExpandedExtent());
  }
  const auto strides = contiguousStrides(sizes, expanded);
  if (!permutation) {
    info.sizes = sizes;
    info.strides = strides;
  } else {
    for (const IterDomain* id : logical) {
      size_t k = std::find(allocation.begin(), allocation.end(), id) - allocation.begin();
      info.sizes.push_back(sizes[k]);
      info.strides.push_back(strides[k]);
    }
  }
  info.alignmentBytes = 256;
  return info;
}

// The first letter of a value name (T3, i2, d0, b1).
bool isNameLetter(char c) { return c == 'T' || c == 'i' || c == 'd' || c == 'b'; }

bool isAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

report::Json renameJson(const SegmentExtraction& segment, const report::Json& json) {
  if (json.isString()) return segment.toCompleteNames(json.asString());
  if (json.isArray()) {
    report::Json out = report::Json::array();
    for (const auto& item : json.items()) out.push(renameJson(segment, item));
    return out;
  }
  if (json.isObject()) {
    report::Json out = report::Json::object();
    for (const auto& [key, value] : json.members()) {
      out.set(segment.toCompleteNames(key), renameJson(segment, value));
    }
    return out;
  }
  return json;
}

}  // namespace

CompleteFusionIndex::CompleteFusionIndex(const ir::Fusion& complete)
    : complete_(&complete), exprs_(complete.exprsForOutputs()) {
  positions_.reserve(exprs_.size());
  for (size_t i = 0; i < exprs_.size(); ++i) {
    positions_.emplace(exprs_[i], static_cast<int>(i));
    const auto id = static_cast<size_t>(exprs_[i]->id());
    if (id >= positionById_.size()) positionById_.resize(id + 1, -1);
    positionById_[id] = static_cast<int>(i);
  }
}

int CompleteFusionIndex::position(const ir::Expr* expr) const {
  const auto id = static_cast<size_t>(expr->id());
  if (id < positionById_.size()) {
    const int p = positionById_[id];
    if (p >= 0 && exprs_[p] == expr) return p;
  }
  auto it = positions_.find(expr);
  return it == positions_.end() ? -1 : it->second;
}

void CompleteFusionIndex::sortTopologically(std::vector<ir::Expr*>& exprs) const {
  std::sort(exprs.begin(), exprs.end(),
            [this](const Expr* a, const Expr* b) { return position(a) < position(b); });
}

std::string SegmentExtraction::toCompleteNames(std::string_view text) const {
  if (!completeNamesBuilt_) {
    for (const CopiedValue& value : copiedValues) {
      const int64_t index = value.first->nameIndex();
      if (index < 0) continue;
      auto& table = value.first->isA<ir::TensorView>() ? tensorsByName_ : scalarsByName_;
      if (static_cast<size_t>(index) >= table.size()) {
        table.resize(static_cast<size_t>(index) + 1, {nullptr, nullptr});
      }
      if (table[index].first == nullptr) table[index] = value;
    }
    completeNamesBuilt_ = true;
  }
  // The complete fusion's value named `token` (a letter and digits) in the
  // segment, or nullptr.
  auto originalOf = [&](std::string_view token) -> const ir::Val* {
    if (token.size() > 2 && token[1] == '0') return nullptr;  // "T01"
    if (token.size() > 12) return nullptr;
    size_t index = 0;
    for (size_t k = 1; k < token.size(); ++k) {
      index = index * 10 + static_cast<size_t>(token[k] - '0');
    }
    const bool tensor = token[0] == 'T';
    const auto& table = tensor ? tensorsByName_ : scalarsByName_;
    if (index >= table.size() || table[index].first == nullptr) return nullptr;
    // A scalar's letter is its dtype's: "d2" never names the integer i2.
    if (!tensor && table[index].first->name()[0] != token[0]) return nullptr;
    return table[index].second;
  };
  std::string out;
  out.reserve(text.size());
  size_t copied = 0;  // text before this is in `out`
  for (size_t i = 0; i < text.size(); ++i) {
    if (!isNameLetter(text[i]) || (i > 0 && isAlnum(text[i - 1]))) {
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    if (end == i + 1 || (end < text.size() && isAlnum(text[end]))) {
      i = end - 1;
      continue;
    }
    if (const ir::Val* original = originalOf(text.substr(i, end - i))) {
      out.append(text.substr(copied, i - copied));
      out += original->name();
      copied = end;
    }
    i = end - 1;
  }
  out.append(text.substr(copied));
  return out;
}

std::vector<Val*> segmentOutputs(const CompleteFusionIndex& index, const std::vector<Expr*>& exprs,
                                 const std::vector<uint8_t>& inGroup) {
  const Fusion& complete = index.fusion();
  std::vector<Val*> outputs;
  for (const Expr* expr : exprs) {
    for (Val* o : expr->outputs()) {
      if (!o->isA<TensorView>()) continue;
      bool boundary = complete.isOutput(o) || (index.isExported(o) && !index.isReplicated(expr));
      if (!boundary && !index.isReplicated(expr)) {
        boundary = std::any_of(o->uses().begin(), o->uses().end(), [&](const Expr* use) {
          return inGroup[static_cast<size_t>(use->id())] == 0 && index.isLive(use);
        });
      }
      if (boundary) outputs.push_back(o);
    }
  }
  sortInterface(outputs, complete.outputVals());
  return outputs;
}

SegmentExtraction extractSegment(const CompleteFusionIndex& index,
                                 const std::vector<ir::Expr*>& exprs, bool withCloneMap) {
  return Extractor(index, withCloneMap).run(exprs, /*whole=*/false);
}

SegmentExtraction extractWholeFusion(const CompleteFusionIndex& index) {
  return Extractor(index, /*withCloneMap=*/true).run(index.exprs(), /*whole=*/true);
}

SegmentRuntime makeSegmentRuntime(const ir::Fusion& complete, const SegmentExtraction& segment,
                                  const SegmenterContext& context) {
  SegmentRuntime runtime;
  runtime.evaluator = std::make_unique<ir::ExpressionEvaluator>();
  if (context.evaluator != nullptr) {
    for (const auto& [copy, original] : segment.symbolicScalars) {
      if (auto value = context.evaluator->evaluate(original)) {
        // Each copy is bound once, so no conflict can quote a source.
        runtime.evaluator->bind(copy, *value);
      }
    }
  }
  runtime.info.device = context.device;
  runtime.info.evaluator = runtime.evaluator.get();
  const auto& completeInputs = complete.inputs();
  const auto& segmentInputs = segment.fusion->inputs();
  for (size_t i = 0; i < segment.inputs.size(); ++i) {
    const Val* original = segment.inputs[i];
    const auto* tv = segmentInputs[i]->as<TensorView>();
    if (tv == nullptr) {
      runtime.info.inputs.emplace_back();
      continue;
    }
    auto it = std::find(completeInputs.begin(), completeInputs.end(), original);
    const size_t position = it - completeInputs.begin();
    if (it != completeInputs.end() && position < context.inputs.size()) {
      runtime.info.inputs.push_back(context.inputs[position]);
    } else {
      runtime.info.inputs.push_back(describeIntermediate(*tv, *runtime.evaluator));
    }
  }
  return runtime;
}

void renameToComplete(const SegmentExtraction& segment, scheduler::SchedulerChoice& choice) {
  for (auto& rejection : choice.rejected) {
    rejection.reason = segment.toCompleteNames(rejection.reason);
  }
  choice.providerRejection = segment.toCompleteNames(choice.providerRejection);
  choice.properties = renameJson(segment, choice.properties);
}

}  // namespace fuserlab::segmenter
