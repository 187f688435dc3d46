#include "db/segment_key.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "core/ir/error.h"
#include "core/scheduler/pointwise/pointwise_params.h"
#include "core/scheduler/reduction/reduction_params.h"
#include "core/scheduler/transpose/transpose_params.h"
#include "db/stable_hash.h"

namespace fuserlab::db {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Fusion;
using ir::IterDomain;
using ir::Scalar;
using ir::TensorView;
using ir::Val;

using Hasher = StableHasher;

// Tensors wider than 16 bytes per access do not exist: alignment beyond 16
// changes nothing a scheduler can do.
int64_t alignmentClass(int64_t alignmentBytes) { return std::min<int64_t>(alignmentBytes, 16); }

// Axis order by decreasing stride (ties keep axis order) and whether the
// strides are the dense strides of the sizes in that order (stride-0 axes,
// broadcast or expanded, are skipped in the density test).
struct ActualLayout {
  std::vector<int64_t> order;
  bool dense = true;
};

ActualLayout actualLayout(const scheduler::TensorInputInfo& input) {
  ActualLayout layout;
  const size_t rank = input.sizes.size();
  layout.order.resize(rank);
  std::iota(layout.order.begin(), layout.order.end(), 0);
  if (input.strides.size() != rank) return layout;
  std::stable_sort(layout.order.begin(), layout.order.end(),
                   [&](int64_t a, int64_t b) { return input.strides[a] > input.strides[b]; });
  int64_t expected = 1;
  for (auto it = layout.order.rbegin(); it != layout.order.rend(); ++it) {
    const int64_t size = input.sizes[*it];
    const int64_t stride = input.strides[*it];
    if (stride == 0 || size == 1) continue;
    if (stride != expected) layout.dense = false;
    expected = stride * size;
  }
  return layout;
}

void addDomain(Hasher& h, const TensorView& tv) {
  h.add(ir::toString(tv.dtype())).addInt(tv.isCpuScalar());
  h.add(static_cast<uint64_t>(tv.logical().size()));
  for (const IterDomain* id : tv.logical()) {
    h.add(ir::toString(id->iterType())).addInt(id->hasExpandedExtent());
  }
  h.add(static_cast<uint64_t>(tv.contiguity().size()));
  for (const auto& flag : tv.contiguity()) h.addInt(flag ? (*flag ? 1 : 0) : 2);
  const auto order = tv.strideOrder();
  h.add(static_cast<uint64_t>(order.size()));
  for (int64_t o : order) h.addInt(o);
  h.addInt(tv.domain().hasAllocation() && order.empty());  // split/merge layouts
}

void addAttrs(Hasher& h, const Expr& expr) {
  const ir::ExprAttrs& a = expr.attrs();
  h.add(ir::toString(expr.type()));
  switch (expr.type()) {
    case ir::ExprType::Unary: h.add(ir::toString(a.unaryOp)); break;
    case ir::ExprType::Binary: h.add(ir::toString(a.binaryOp)); break;
    case ir::ExprType::Ternary: h.add(ir::toString(a.ternaryOp)); break;
    case ir::ExprType::Reduction: h.add(ir::toString(a.reductionOp)); break;
    case ir::ExprType::Random: h.add(ir::toString(a.randomOp)); break;
    default: break;
  }
  h.add(static_cast<uint64_t>(a.axes.size()));
  for (int64_t axis : a.axes) h.addInt(axis);
  h.add(static_cast<uint64_t>(a.broadcastFlags.size()));
  for (bool flag : a.broadcastFlags) h.addInt(flag);
  h.addInt(a.dim).add(ir::toString(a.dtype));
  // Only the ops with options have flags: the keys of the others (every
  // key stored before flags existed) stay the same.
  if (!a.flags.empty()) {
    h.add(static_cast<uint64_t>(a.flags.size()));
    for (bool flag : a.flags) h.addInt(flag);
  }
}

// Hashes of the segment's values, by Val id; leaves (inputs, constants,
// input extents) are hashed by what they are, defined values by their
// definition, so names and the order of independent exprs never matter.
class StructureHasher {
 public:
  StructureHasher(const Fusion& fusion, const scheduler::SegmentRuntimeInfo& info)
      : fusion_(fusion), info_(info), hashes_(fusion.vals().size(), 0) {
    const auto& inputs = fusion.inputs();
    for (size_t position = 0; position < inputs.size(); ++position) {
      inputPosition_.emplace_back(inputs[position], position);
      const auto* tv = inputs[position]->as<TensorView>();
      if (tv == nullptr) continue;
      for (size_t axis = 0; axis < tv->logical().size(); ++axis) {
        const IterDomain* id = tv->logical()[axis];
        extentOwner_.push_back({id->extent(), position, axis, false});
        if (id->hasExpandedExtent()) {
          extentOwner_.push_back({id->expandedExtent(), position, axis, true});
        }
      }
    }
  }

  uint64_t fusionHash() {
    for (const Expr* expr : fusion_.exprsForOutputs()) hashExpr(*expr);
    Hasher h("fusion");
    h.add(static_cast<uint64_t>(fusion_.inputs().size()));
    for (const Val* input : fusion_.inputs()) h.add(hashOf(input));
    h.add(static_cast<uint64_t>(fusion_.outputs().size()));
    for (const auto& output : fusion_.outputs()) {
      h.add(hashOf(output.val));
      h.addInt(output.aliasOf ? positionOf(output.aliasOf) : -1);
    }
    return h.value();
  }

 private:
  struct ExtentOwner {
    const Scalar* extent;
    size_t input;
    size_t axis;
    bool expanded;
  };

  int64_t positionOf(const Val* val) const {
    for (const auto& [input, position] : inputPosition_) {
      if (input == val) return static_cast<int64_t>(position);
    }
    return -1;
  }

  uint64_t& slot(const Val* val) {
    FL_ASSERT(val->id() >= 0 && static_cast<size_t>(val->id()) < hashes_.size(), "val ",
              val->name(), " has id ", val->id(), " outside its fusion's ", hashes_.size(),
              " vals");
    return hashes_[val->id()];
  }

  uint64_t hashOf(const Val* val) {
    uint64_t& cached = slot(val);
    if (cached == 0) cached = leafHash(val) | 1;  // 0 marks "not computed"
    return cached;
  }

  uint64_t leafHash(const Val* val) {
    if (const int64_t position = positionOf(val); position >= 0) {
      Hasher h("input");
      h.addInt(position);
      if (const auto* tv = val->as<TensorView>()) {
        addDomain(h, *tv);
        if (static_cast<size_t>(position) < info_.inputs.size()) {
          const auto& input = info_.inputs[position];
          const ActualLayout layout = actualLayout(input);
          h.add(static_cast<uint64_t>(layout.order.size()));
          for (int64_t axis : layout.order) h.addInt(axis);
          h.addInt(layout.dense).addInt(alignmentClass(input.alignmentBytes));
        }
      } else {
        h.add(ir::toString(val->dtype()));
      }
      return h.value();
    }
    if (const auto* scalar = val->as<Scalar>()) {
      if (scalar->isConst()) {
        Hasher h("constant");
        h.add(ir::toString(scalar->dtype()));
        const auto& value = scalar->value();
        if (const auto* b = std::get_if<bool>(&value)) h.addInt(*b);
        if (const auto* i = std::get_if<int64_t>(&value)) h.addInt(*i);
        if (const auto* d = std::get_if<double>(&value)) h.add(ir::formatDouble(*d));
        return h.value();
      }
      for (const auto& owner : extentOwner_) {
        if (owner.extent == scalar) {
          return Hasher("extent")
              .addInt(owner.input)
              .addInt(owner.axis)
              .addInt(owner.expanded)
              .value();
        }
      }
    }
    // A value defined outside the exprs the outputs need, or a symbolic
    // scalar of no input: only its kind and dtype say anything.
    return Hasher("free").addInt(val->isA<TensorView>()).add(ir::toString(val->dtype())).value();
  }

  void hashExpr(const Expr& expr) {
    Hasher h("expr");
    addAttrs(h, expr);
    h.add(static_cast<uint64_t>(expr.inputs().size()));
    for (const Val* input : expr.inputs()) h.add(hashOf(input));
    const uint64_t exprHash = h.value();
    for (size_t i = 0; i < expr.outputs().size(); ++i) {
      const Val* output = expr.outputs()[i];
      Hasher out("output");
      out.add(exprHash).addInt(static_cast<int64_t>(i));
      if (const auto* tv = output->as<TensorView>()) {
        addDomain(out, *tv);
      } else {
        out.add(ir::toString(output->dtype()));
      }
      slot(output) = out.value() | 1;
    }
  }

  const Fusion& fusion_;
  const scheduler::SegmentRuntimeInfo& info_;
  std::vector<uint64_t> hashes_;
  std::vector<std::pair<const Val*, size_t>> inputPosition_;
  std::vector<ExtentOwner> extentOwner_;
};

template <typename Extent>
std::string joinSizes(const scheduler::SegmentRuntimeInfo& info, Extent extent, bool withStrides) {
  std::string text;
  for (size_t i = 0; i < info.inputs.size(); ++i) {
    const auto& input = info.inputs[i];
    if (i > 0) text += ',';
    if (input.sizes.empty()) {  // a scalar (or a 0-d tensor)
      text += 's';
      continue;
    }
    for (size_t axis = 0; axis < input.sizes.size(); ++axis) {
      if (axis > 0) text += 'x';
      text += std::to_string(extent(input.sizes[axis]));
    }
    if (withStrides && !actualLayout(input).dense) {
      text += '@';
      for (size_t axis = 0; axis < input.strides.size(); ++axis) {
        if (axis > 0) text += ':';
        text += std::to_string(input.strides[axis]);
      }
    }
  }
  return text;
}

}  // namespace

uint64_t structuralHash(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info) {
  return StructureHasher(segment, info).fusionHash();
}

int64_t sizeBucket(int64_t extent) {
  if (extent <= 16) return extent;
  int bits = 0;
  for (uint64_t v = static_cast<uint64_t>(extent); v != 0; v >>= 1) ++bits;
  const int64_t step = int64_t{1} << (bits - 4);
  return (extent + step - 1) / step * step;
}

std::string sizesText(const scheduler::SegmentRuntimeInfo& info) {
  return joinSizes(
      info, [](int64_t n) { return n; }, true);
}

std::string sizeBucketText(const scheduler::SegmentRuntimeInfo& info) {
  return joinSizes(info, sizeBucket, false);
}

std::string deviceFingerprint(const scheduler::DeviceSpec& device) {
  const int64_t memoryGb = (device.memoryBytes + 500'000'000) / 1'000'000'000;
  return device.arch() + "-" + std::to_string(device.smCount) + "sm-" + std::to_string(memoryGb) +
         "gb-" + std::to_string(device.l2CacheBytes / 1024) + "kib-" +
         std::to_string((device.clockKhz + 500) / 1000) + "mhz";
}

int paramsSchemaVersion(scheduler::SchedulerType type) {
  using scheduler::SchedulerType;
  switch (type) {
    case SchedulerType::Pointwise: return scheduler::PointwiseParams::kSchemaVersion;
    case SchedulerType::Transpose: return scheduler::TransposeParams::kSchemaVersion;
    case SchedulerType::Reduction:
    case SchedulerType::InnerPersistent:
    case SchedulerType::OuterPersistent: return scheduler::ReductionParams::kSchemaVersion;
    default: return 0;
  }
}

SegmentKey segmentKey(const ir::Fusion& segment, scheduler::SchedulerType type,
                      const scheduler::SegmentRuntimeInfo& info) {
  SegmentKey key;
  key.structureHash = hex64(structuralHash(segment, info));
  key.scheduler = std::string(scheduler::toString(type));
  key.sizes = sizesText(info);
  key.sizeBucket = sizeBucketText(info);
  FL_ASSERT(info.device != nullptr, "a segment key needs the device");
  key.deviceFingerprint = deviceFingerprint(*info.device);
  key.paramsSchema = paramsSchemaVersion(type);
  return key;
}

std::string hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace fuserlab::db
