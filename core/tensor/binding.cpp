#include "core/tensor/binding.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

using ir::IterDomain;
using ir::IterDomainTransform;
using ir::TensorView;
using ir::TransformKind;

std::string describe(const ir::Val* val, size_t position) {
  std::string out = "input " + std::to_string(position) + " (" + val->name();
  if (!val->scriptName().empty() && val->scriptName() != val->name()) {
    out += ", '" + val->scriptName() + "' in the script";
  }
  return out + ")";
}

std::string shapeString(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return out + "]";
}

enum class Layout { Logical, Permutation, Transformed };

Layout layoutOf(const TensorView& tv) {
  const auto& d = tv.domain();
  if (!d.hasAllocation()) return Layout::Logical;
  if (d.allocation.size() == d.logical.size() &&
      std::is_permutation(d.allocation.begin(), d.allocation.end(), d.logical.begin())) {
    return Layout::Permutation;
  }
  return Layout::Transformed;
}

// The Split/Merge transforms between a tensor's logical and allocation
// domains, in creation order (which is topological).
std::vector<const IterDomainTransform*> transformsBetween(const TensorView& tv) {
  std::unordered_set<const IterDomainTransform*> needed;
  std::unordered_set<const IterDomain*> logical(tv.logical().begin(), tv.logical().end());
  std::vector<const IterDomain*> stack(tv.maybeAllocation().begin(), tv.maybeAllocation().end());
  while (!stack.empty()) {
    const IterDomain* id = stack.back();
    stack.pop_back();
    if (logical.count(id)) continue;
    const IterDomainTransform* def = id->definition();
    FL_CHECK(def != nullptr, "allocation axis ", id->toString(), " of ", tv.name(),
             " is not derived from its logical domain");
    if (!needed.insert(def).second) continue;
    for (const IterDomain* in : def->inputs()) stack.push_back(in);
  }
  std::vector<const IterDomainTransform*> ordered;
  for (const auto& t : tv.fusion()->transforms()) {
    if (needed.count(t.get())) ordered.push_back(t.get());
  }
  return ordered;
}

// Extents of the IterDomains between logical and allocation, either local
// (DID axes count 1: the shard this process holds) or global.
using ExtentMap = std::unordered_map<const IterDomain*, int64_t>;

int64_t knownExtent(const IterDomain* id, const ExtentMap& extents,
                    ir::ExpressionEvaluator& evaluator, bool local) {
  if (auto it = extents.find(id); it != extents.end()) return it->second;
  if (local && id->isDeviceDim()) return 1;
  auto value = evaluator.evaluate(id->extent());
  if (!value) return -1;
  if (const auto* i = std::get_if<int64_t>(&*value)) return *i;
  return -1;
}

// Plays the transforms backward from allocation extents to logical extents.
void inferBackward(const std::vector<const IterDomainTransform*>& transforms, ExtentMap& extents,
                   ir::ExpressionEvaluator& evaluator, bool local, const std::string& what) {
  for (auto it = transforms.rbegin(); it != transforms.rend(); ++it) {
    const IterDomainTransform* t = *it;
    if (t->kind() == TransformKind::Split) {
      int64_t outer = knownExtent(t->outputs()[0], extents, evaluator, local);
      int64_t inner = knownExtent(t->outputs()[1], extents, evaluator, local);
      FL_ASSERT(outer >= 0 && inner >= 0, "split outputs of ", what, " have no extents");
      // The canonical preimage: the split is taken to be divisible.
      extents[t->inputs()[0]] = outer * inner;
    } else {
      const IterDomain* outerId = t->inputs()[0];
      const IterDomain* innerId = t->inputs()[1];
      int64_t merged = knownExtent(t->outputs()[0], extents, evaluator, local);
      int64_t outer = knownExtent(outerId, extents, evaluator, local);
      int64_t inner = knownExtent(innerId, extents, evaluator, local);
      FL_CHECK(outer >= 0 || inner >= 0, what,
               ": cannot infer the extents merged into allocation axis ",
               t->outputs()[0]->toString(), "; one of the merged axes needs a known extent");
      if (inner < 0) inner = outer == 0 ? 0 : merged / outer;
      if (outer < 0) outer = inner == 0 ? 0 : merged / inner;
      FL_CHECK(outer * inner == merged, what, ": allocation axis ", t->outputs()[0]->toString(),
               " has size ", merged, ", which is not ", outer, " x ", inner);
      extents[outerId] = outer;
      extents[innerId] = inner;
    }
  }
}

// Plays the transforms forward from logical extents to allocation extents.
void inferForward(const std::vector<const IterDomainTransform*>& transforms, ExtentMap& extents,
                  ir::ExpressionEvaluator& evaluator) {
  for (const IterDomainTransform* t : transforms) {
    if (t->kind() == TransformKind::Split) {
      const IterDomain* outerId = t->outputs()[0];
      const IterDomain* innerId = t->outputs()[1];
      int64_t in = extents.at(t->inputs()[0]);
      if (outerId->isDeviceDim() || innerId->isDeviceDim()) {
        // Local shard: the DID side is 1 and the other keeps the whole input.
        extents[outerId] = outerId->isDeviceDim() ? 1 : in;
        extents[innerId] = innerId->isDeviceDim() ? 1 : in;
        continue;
      }
      int64_t factor = evaluator.evaluateInt(t->factor(), "split factor");
      FL_CHECK(factor > 0, "split factor must be positive, found ", factor);
      int64_t rest = (in + factor - 1) / factor;
      extents[outerId] = t->innerSplit() ? rest : factor;
      extents[innerId] = t->innerSplit() ? factor : rest;
    } else {
      extents[t->outputs()[0]] = extents.at(t->inputs()[0]) * extents.at(t->inputs()[1]);
    }
  }
}

// For every element of the logical view, its offset in an allocation-shaped
// layout with `allocationStrides`. Index arithmetic runs through the
// transforms per element; this path only serves layouts that no strides can
// express, which are rare and small in practice.
std::vector<int64_t> logicalToAllocationOffsets(
    const TensorView& tv, const std::vector<const IterDomainTransform*>& transforms,
    const ExtentMap& extents, const std::vector<int64_t>& allocationStrides) {
  const auto& logical = tv.logicalNoReductions();
  const auto& allocation = tv.maybeAllocation();
  std::vector<int64_t> sizes;
  int64_t numel = 1;
  for (const IterDomain* id : logical) {
    sizes.push_back(extents.at(id));
    numel *= sizes.back();
  }
  std::vector<int64_t> offsets;
  offsets.reserve(numel);
  std::vector<int64_t> index(logical.size(), 0);
  std::unordered_map<const IterDomain*, int64_t> at;
  for (int64_t n = 0; n < numel; ++n) {
    at.clear();
    for (size_t i = 0; i < logical.size(); ++i) at[logical[i]] = index[i];
    for (const IterDomainTransform* t : transforms) {
      if (t->kind() == TransformKind::Split) {
        const IterDomain* outerId = t->outputs()[0];
        const IterDomain* innerId = t->outputs()[1];
        int64_t in = at.at(t->inputs()[0]);
        int64_t innerExtent = extents.at(innerId);
        if (outerId->isDeviceDim()) {
          at[outerId] = 0;
          at[innerId] = in;
        } else if (innerId->isDeviceDim()) {
          at[outerId] = in;
          at[innerId] = 0;
        } else {
          at[outerId] = in / innerExtent;
          at[innerId] = in % innerExtent;
        }
      } else {
        const IterDomain* innerId = t->inputs()[1];
        at[t->outputs()[0]] = at.at(t->inputs()[0]) * extents.at(innerId) + at.at(innerId);
      }
    }
    int64_t offset = 0;
    size_t k = 0;  // allocation strides skip reduction axes
    for (const IterDomain* id : allocation) {
      if (id->isReduction()) continue;
      offset += at.at(id) * allocationStrides[k++];
    }
    offsets.push_back(offset);
    for (size_t d = logical.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

class InputBinder {
 public:
  InputBinder(ir::ExpressionEvaluator& evaluator) : evaluator_(evaluator) {}

  Argument bindTensor(const TensorView& tv, size_t position, const Tensor& tensor) {
    const std::string what = describe(&tv, position);
    FL_CHECK(tensor.dtype() == tv.dtype(), what, ": expected a ", ir::toString(tv.dtype()),
             " tensor, found ", ir::toString(tensor.dtype()));
    // A CPU scalar reaches its kernels by value, read on the host.
    FL_CHECK(!tv.isCpuScalar() || tensor.isCpu() || tensor.isMetadataOnly(), what,
             ": declared a CPU scalar (is_cpu=True), so it must be a "
             "0-dim CPU tensor or a number, found a tensor on ",
             tensor.device().toString());
    switch (layoutOf(tv)) {
      case Layout::Logical:
        return bindLogical(tv, position, tensor, tv.logicalNoReductions(), tensor.sizes(),
                           tensor.strides());
      case Layout::Permutation: return bindPermuted(tv, position, tensor);
      case Layout::Transformed: return bindTransformed(tv, position, tensor);
    }
    return {};
  }

 private:
  // Checks sizes against extents and binds symbolic ones.
  void bindExtent(const IterDomain* id, int64_t size, const std::string& what, size_t dim) {
    if (id->isBroadcast() && !id->hasExpandedExtent()) {
      FL_CHECK(size == 1, what, " dimension ", dim,
               ": expected size 1 (a broadcast axis, declared with shape 1), "
               "found ",
               size);
      return;
    }
    // An expanded broadcast axis binds its expanded extent (read with
    // stride 0).
    const ir::Scalar* extent = id->extentForIteration();
    if (auto known = evaluator_.evaluate(extent)) {
      int64_t value = std::get<int64_t>(*known);
      if (value != size) {
        std::string origin;
        if (auto it = boundBy_.find(extent); it != boundBy_.end()) {
          origin = " (extent " + extent->name() + ", bound by " + it->second + ")";
        } else if (extent->isConst()) {
          origin = " (declared in the script)";
        }
        FL_USER_ERROR(what, " dimension ", dim, ": expected size ", value, origin, ", found ",
                      size);
      }
      return;
    }
    evaluator_.bind(extent, size);
    boundBy_[extent] = what + " dimension " + std::to_string(dim);
  }

  // Strides against contiguity, both in allocation order.
  void checkStrides(const TensorView& tv, const std::string& what,
                    const std::vector<const IterDomain*>& ids, const std::vector<int64_t>& sizes,
                    const std::vector<int64_t>& strides, const std::vector<size_t>& dimNames) {
    const auto& contiguity = tv.contiguity();
    // An empty tensor addresses no element: any strides describe it.
    for (int64_t size : sizes) {
      if (size == 0) return;
    }
    int64_t expected = 1;
    for (size_t k = ids.size(); k-- > 0;) {
      // As nvFuser's bindTensorDomain: the kernels read an expanded axis
      // with stride 0, so data that varies along it would be read wrong.
      FL_CHECK(!ids[k]->hasExpandedExtent() || sizes[k] == 1 || strides[k] == 0, what,
               " dimension ", dimNames[k],
               ": declared an expanded "
               "broadcast (contiguity None with a size other than 1), so its "
               "stride must be 0, found stride ",
               strides[k], " (size ", sizes[k],
               "); pass an expanded tensor (t.expand(...)) or declare "
               "the axis with contiguity True or False");
      if (ids[k]->isBroadcast() || ids[k]->isReduction() || sizes[k] == 1) {
        // Size-1 and broadcast axes (stride 0 when expanded) do not take part
        // in contiguity.
        continue;
      }
      if (contiguity.at(k).value_or(false)) {
        FL_CHECK(strides[k] == expected, what, " dimension ", dimNames[k],
                 ": declared contiguous, so its stride must be ", expected, ", found ", strides[k],
                 " (sizes ", shapeString(sizes), ", strides ", shapeString(strides),
                 " in allocation order); pass a contiguous tensor or declare "
                 "contiguity=False for this dimension");
      }
      expected = strides[k] * sizes[k];
    }
  }

  Argument bindLogical(const TensorView& tv, size_t position, const Tensor& tensor,
                       const std::vector<IterDomain*>& logical, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides) {
    const std::string what = describe(&tv, position);
    FL_CHECK(tensor.dim() == static_cast<int64_t>(logical.size()), what,
             ": expected a tensor of rank ", logical.size(), ", found rank ", tensor.dim(),
             " (shape ", shapeString(tensor.sizes()), ")");
    std::vector<const IterDomain*> ids(logical.begin(), logical.end());
    std::vector<size_t> dims(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      dims[i] = i;
      bindExtent(ids[i], sizes[i], what, i);
    }
    checkStrides(tv, what, ids, sizes, strides, dims);
    return tensor;
  }

  Argument bindPermuted(const TensorView& tv, size_t position, const Tensor& tensor) {
    const std::string what = describe(&tv, position);
    const auto& logical = tv.logicalNoReductions();
    FL_CHECK(tensor.dim() == static_cast<int64_t>(logical.size()), what,
             ": expected a tensor of rank ", logical.size(), ", found rank ", tensor.dim(),
             " (shape ", shapeString(tensor.sizes()), ")");
    for (size_t i = 0; i < logical.size(); ++i) {
      bindExtent(logical[i], tensor.sizes()[i], what, i);
    }
    // Strides in allocation order, checked against contiguity.
    const auto& allocation = tv.maybeAllocation();
    std::vector<const IterDomain*> ids;
    std::vector<int64_t> sizes, strides;
    std::vector<size_t> dims;
    for (const IterDomain* id : allocation) {
      size_t i = std::find(logical.begin(), logical.end(), id) - logical.begin();
      ids.push_back(id);
      sizes.push_back(tensor.sizes()[i]);
      strides.push_back(tensor.strides()[i]);
      dims.push_back(i);
    }
    checkStrides(tv, what, ids, sizes, strides, dims);
    return tensor;
  }

  Argument bindTransformed(const TensorView& tv, size_t position, const Tensor& tensor) {
    const std::string what = describe(&tv, position);
    const auto& allocation = tv.maybeAllocation();
    const auto alloc = ir::noReductions(allocation);
    FL_CHECK(tensor.dim() == static_cast<int64_t>(alloc.size()), what,
             ": expected a tensor of rank ", alloc.size(),
             " matching the allocation domain, found rank ", tensor.dim(), " (shape ",
             shapeString(tensor.sizes()), ")");
    const auto transforms = transformsBetween(tv);
    ExtentMap local;
    for (size_t a = 0; a < alloc.size(); ++a) {
      int64_t size = tensor.sizes()[a];
      if (alloc[a]->isDeviceDim()) {
        FL_CHECK(size == 1, what, " dimension ", a, " is sharded over devices (",
                 alloc[a]->toString(), "): the local shard must have size 1 there, found ", size);
      }
      local[alloc[a]] = size;
    }
    inferBackward(transforms, local, evaluator_, /*local=*/true, what);

    // Global extents: DID axes take their (mesh) extent from the IR.
    ExtentMap global;
    for (const IterDomain* id : alloc) {
      global[id] =
          id->isDeviceDim() ? evaluator_.evaluateInt(id->extent(), "device axis") : local.at(id);
    }
    inferBackward(transforms, global, evaluator_, /*local=*/false, what);
    const auto& logical = tv.logicalNoReductions();
    for (size_t i = 0; i < logical.size(); ++i) {
      bindExtent(logical[i], global.at(logical[i]), what, i);
    }

    std::vector<const IterDomain*> ids(alloc.begin(), alloc.end());
    std::vector<size_t> dims(ids.size());
    for (size_t i = 0; i < dims.size(); ++i) dims[i] = i;
    checkStrides(tv, what, ids, tensor.sizes(), tensor.strides(), dims);

    // Materialize the logical (local) view on the host. Metadata-only and
    // device tensors (the compiler binds shapes only) get a data-less view.
    std::vector<int64_t> logicalSizes;
    for (const IterDomain* id : logical) logicalSizes.push_back(local.at(id));
    if (tensor.isMetadataOnly() || !tensor.isCpu()) {
      return Tensor::metadata(tv.dtype(), logicalSizes, Tensor::contiguousStrides(logicalSizes), 0,
                              tensor.device());
    }
    Tensor out = Tensor::empty(tv.dtype(), logicalSizes);
    const auto offsets = logicalToAllocationOffsets(tv, transforms, local, tensor.strides());
    const size_t bytes = ir::sizeInBytes(tv.dtype());
    auto* dst = static_cast<std::byte*>(out.data());
    const auto* src = static_cast<const std::byte*>(tensor.data());
    for (size_t n = 0; n < offsets.size(); ++n) {
      std::memcpy(dst + n * bytes, src + offsets[n] * bytes, bytes);
    }
    return out;
  }

  ir::ExpressionEvaluator& evaluator_;
  std::map<const ir::Scalar*, std::string> boundBy_;
};

ir::ScalarValue castScalar(const ir::ScalarValue& value, ir::DataType dtype,
                           const std::string& what) {
  auto asDouble = [&]() -> double {
    if (const auto* d = std::get_if<double>(&value)) return *d;
    if (const auto* i = std::get_if<int64_t>(&value)) return double(*i);
    if (const auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
    FL_USER_ERROR(what, ": no value was given");
  };
  if (ir::isFloatingPoint(dtype)) return asDouble();
  if (dtype == ir::DataType::Bool) return asDouble() != 0.0;
  FL_CHECK(!std::holds_alternative<double>(value), what, ": expected an ", ir::toString(dtype),
           " scalar, found the floating-point value ", std::get<double>(value));
  return static_cast<int64_t>(asDouble());
}

}  // namespace

Arguments bindInputs(const ir::Fusion& fusion, const Arguments& args,
                     ir::ExpressionEvaluator& evaluator) {
  const auto& inputs = fusion.inputs();
  FL_CHECK(args.size() == inputs.size(), "the fusion has ", inputs.size(), " inputs but ",
           args.size(), " were given");
  InputBinder binder(evaluator);
  Arguments bound;
  bound.reserve(args.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    // The error names the input, so that a reader can point at where it
    // was given (the inputs block entry).
    try {
      const ir::Val* input = inputs[i];
      const std::string what = describe(input, i);
      if (const auto* tv = input->as<TensorView>()) {
        if (const auto* scalar = std::get_if<ir::ScalarValue>(&args[i])) {
          // A number for a 0-dim (cpu scalar) tensor input.
          FL_CHECK(tv->rank() == 0, what, ": expected a tensor of rank ", tv->rank(),
                   ", found a scalar");
          Tensor t = Tensor::empty(tv->dtype(), {});
          const auto v = castScalar(*scalar, ir::DataType::Double, what);
          t.fill(std::get<double>(v));
          bound.emplace_back(t);
          continue;
        }
        bound.push_back(binder.bindTensor(*tv, i, std::get<Tensor>(args[i])));
        continue;
      }
      const auto* scalarInput = input->as<ir::Scalar>();
      ir::ScalarValue value;
      if (const auto* t = std::get_if<Tensor>(&args[i])) {
        FL_CHECK(t->dim() == 0 && t->isCpu(), what, ": expected a scalar, found a tensor of shape ",
                 shapeString(t->sizes()));
        double item = t->item({});
        value = ir::isFloatingPoint(t->dtype()) ? ir::ScalarValue(item)
                                                : ir::ScalarValue(int64_t(item));
      } else {
        value = std::get<ir::ScalarValue>(args[i]);
      }
      value = castScalar(value, scalarInput->dtype(), what);
      evaluator.bind(scalarInput, value);
      bound.emplace_back(value);
    } catch (const UserError& error) {
      if (error.location() || dynamic_cast<const InputBindingError*>(&error)) throw;
      throw InputBindingError(error.message(), i, inputs[i]->name());
    }
  }
  return bound;
}

Tensor layoutOutput(const TensorView& tv, const Tensor& logical,
                    ir::ExpressionEvaluator& evaluator) {
  switch (layoutOf(tv)) {
    case Layout::Logical: return logical;
    case Layout::Permutation: {
      const auto& logicalIds = tv.logicalNoReductions();
      // A reduction output's allocation holds its reduced axes too (as its
      // logical domain does); they have no data (difftest seed 441176).
      const auto allocation = ir::noReductions(tv.maybeAllocation());
      // Allocation order = a permutation of logical dims; lay the data out
      // contiguously in that order and view it with logical sizes.
      std::vector<int64_t> order;
      for (const IterDomain* id : allocation) {
        order.push_back(std::find(logicalIds.begin(), logicalIds.end(), id) - logicalIds.begin());
      }
      Tensor permuted = logical.permute(order).contiguous();
      std::vector<int64_t> inverse(order.size());
      for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = int64_t(i);
      return permuted.permute(inverse);
    }
    case Layout::Transformed: {
      const auto transforms = transformsBetween(tv);
      ExtentMap local;
      const auto& logicalIds = tv.logicalNoReductions();
      for (size_t i = 0; i < logicalIds.size(); ++i) {
        local[logicalIds[i]] = logical.sizes()[i];
      }
      inferForward(transforms, local, evaluator);
      const auto alloc = ir::noReductions(tv.maybeAllocation());
      std::vector<int64_t> sizes;
      for (const IterDomain* id : alloc) sizes.push_back(local.at(id));
      Tensor out = Tensor::empty(tv.dtype(), sizes);
      const auto offsets = logicalToAllocationOffsets(tv, transforms, local, out.strides());
      const Tensor src = logical.contiguous();
      const size_t bytes = ir::sizeInBytes(tv.dtype());
      auto* dst = static_cast<std::byte*>(out.data());
      const auto* from = static_cast<const std::byte*>(src.data());
      for (size_t n = 0; n < offsets.size(); ++n) {
        std::memcpy(dst + offsets[n] * bytes, from + n * bytes, bytes);
      }
      return out;
    }
  }
  return logical;
}

}  // namespace fuserlab::runtime
