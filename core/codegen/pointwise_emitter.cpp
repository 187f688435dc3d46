#include "core/codegen/pointwise_emitter.h"

#include <algorithm>
#include <optional>

#include "core/codegen/expression_emitter.h"
#include "core/codegen/kernel_interface.h"
#include "core/codegen/reference_walk.h"
#include "core/codegen/vector_lanes.h"
#include "core/ir/error.h"
#include "core/scheduler/analysis/axis_trace.h"
#include "core/scheduler/analysis/memory_layout.h"
#include "core/scheduler/analysis/vectorization.h"

namespace fuserlab::codegen {
namespace {

using ir::TensorView;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Prefix of the per-lane index of the reference's innermost axis.
constexpr const char* kLanePrefix = "lane_";

std::string indent(int spaces) { return std::string(static_cast<size_t>(spaces), ' '); }

// A tensor read or written with vector accesses (when the kernel's checks
// pass): its innermost logical axis in memory.
struct VectorAccess {
  const TensorView* tv = nullptr;
  bool output = false;
  int64_t innerAxis = -1;
};

// A load issued before any compute (phase 1): a vector of `tv`, or one
// element that is the same for every lane of a chunk; inside a pad or cat
// branch taken once per vector, only where that branch is taken.
struct HoistedLoad {
  const TensorView* tv = nullptr;
  bool vector = false;
  std::string key;        // the index it was requested at
  std::string array;      // the local array, one entry per unrolled chunk
  std::string offset;     // element offset at lane 0
  std::string predicate;  // the branch condition at lane 0; empty: always
  // Same for every row of a 2-D schedule (the tensor is broadcast along the
  // outer part): loaded once per inner chunk and shared by the outer-unrolled
  // rows instead of once per row.
  bool innerOnly = false;
};

class PointwiseKernel {
 public:
  PointwiseKernel(const ir::Fusion& segment, const scheduler::PointwiseParams& params,
                  const scheduler::SegmentRuntimeInfo& info, std::string_view name)
      : segment_(segment),
        params_(params),
        info_(info),
        name_(name),
        interface_(segment, info, !params.useInt32Indexing) {}

  GeneratedKernel build();

 private:
  void analyze();
  std::string body(bool vectorPass);
  std::string positionCode(bool vectorPass, bool element, int pad) const;
  //! Every extent of the reference's walk is a constant in the source when
  //! known (ReferenceWalk::extentDeclaration): a division by a run-time
  //! extent is ~20 instructions, and the outermost extents' loads and
  //! products sit in every thread's prologue. The kernel is generated for
  //! one set of sizes anyway (the executor's kernel key holds them; its
  //! launch and its comment block name them), as the reduction kernels are,
  //! and the reference parameter's builtInSizes say so to the executor.
  std::vector<std::string> referenceIndexNames(bool lane) const;
  bool rowIndependent(const std::string& offset, const std::string& predicate) const;
  std::string hoistedRead(const HoistedLoad& load) const;
  bool holdsAcrossChunks(const std::string& code) const;
  bool wholeVectorsOutsideRun(const scheduler::MemoryLayout& layout) const;
  bool chunksMayCrossAxes() const;
  std::string loadLeaf(const TensorView* tv, const ElementIndex& index, bool vectorPass,
                       const ExpressionEmitter& emitter);
  const VectorAccess* vectorAccess(const TensorView* tv, bool output) const;
  //! Whether lane j of a chunk reads element j of one vector of `access`:
  //! the inner axis's index is the lane (or, with `shifted`, lane-affine
  //! with an aligned shift) and no other index names the lane.
  bool laneMapsToInnerAxis(const VectorAccess& access, const ElementIndex& index,
                           bool shifted = false) const;
  std::string uniformIndex(const std::string& expression, const std::string& hint);
  std::string vectorCondition() const;
  LaunchConfig launchConfig() const;

  const ir::Fusion& segment_;
  const scheduler::PointwiseParams& params_;
  const scheduler::SegmentRuntimeInfo& info_;
  std::string name_;
  KernelInterface interface_;

  std::optional<ReferenceWalk> walk_;
  const TensorView* reference_ = nullptr;
  std::vector<int64_t> refLogical_;  // logical position of each allocation axis
  std::vector<int64_t> refExtents_;  // evaluated, allocation order
  int64_t rank_ = 0;
  int64_t breakPoint_ = 0;
  int64_t vector_ = 1;
  int64_t unroll_ = 1;
  int64_t unrollInner_ = 1;
  int64_t unrollOuter_ = 1;
  std::vector<VectorAccess> candidates_;
  std::vector<std::string> vectorNotes_;

  // Kernel-uniform index values (slice starts), declared at the kernel's
  // start: (expression, name).
  std::vector<std::pair<std::string, std::string>> uniforms_;
  // What must be a multiple of kVector for the vectorized pass (its lanes'
  // shifts and branch bounds known only at run time).
  std::vector<std::string> laneRequirements_;

  // Per vectorized pass.
  std::vector<HoistedLoad> hoisted_;
  VectorLanes* lanes_ = nullptr;
  std::vector<VectorAccess> used_;  // vector accesses the pass makes
  // No lane of a chunk needs its own index: only vector accesses see lanes.
  bool laneIndependent_ = false;
  // The vectorized pass's per-lane code (computes, scalar stores): run for
  // every lane at the chunk's first reference position.
  std::string laneCode_;
};

void PointwiseKernel::analyze() {
  walk_.emplace(segment_, info_);
  reference_ = walk_->reference();
  for (int64_t k = 0; k < walk_->rank(); ++k) refLogical_.push_back(walk_->logical(k));
  refExtents_ = walk_->extents();
  rank_ = static_cast<int64_t>(refLogical_.size());
  breakPoint_ = params_.breakPoint;
  FL_CHECK(breakPoint_ >= 0 && breakPoint_ < std::max<int64_t>(rank_, 1),
           "code generation: break point ", breakPoint_,
           " is outside the axes of the "
           "reference ",
           reference_->name(), " (rank ", rank_, ")");
  vector_ = params_.vectorizationFactor;
  FL_CHECK(vector_ >= 1 && vector_ <= 16 && (vector_ & (vector_ - 1)) == 0,
           "code generation: vectorization factor ", vector_, " is not 1, 2, 4, 8 or 16");
  FL_CHECK(params_.unrollFactorInner >= 1 && params_.unrollFactorOuter >= 1,
           "code generation: unroll factors must be at least 1");
  FL_CHECK(params_.blockDimX >= 1 && params_.blockDimY >= 1 &&
               params_.blockDimX * params_.blockDimY <= 1024,
           "code generation: block ", params_.blockDimX, "x", params_.blockDimY,
           " is not a valid CUDA block");
  if (breakPoint_ == 0) {
    // 1-D: one unrolled dimension.
    unrollInner_ = params_.unrollFactorInner * params_.unrollFactorOuter;
    unrollOuter_ = 1;
  } else {
    unrollInner_ = params_.unrollFactorInner;
    unrollOuter_ = params_.unrollFactorOuter;
  }
  unroll_ = unrollInner_ * unrollOuter_;

  if (vector_ == 1) return;
  scheduler::VectorizationQuery query;
  query.reference = reference_;
  query.splitWideAccesses = true;
  query.breakPoint = breakPoint_;
  const scheduler::VectorizationAnalysis analysis =
      scheduler::analyzeVectorization(segment_, info_, query);
  for (const TensorView* tv : scheduler::inputsAndOutputs(segment_)) {
    const scheduler::TensorVectorization* v = analysis.find(tv->name());
    if (v == nullptr || !v->vectorized) {
      vectorNotes_.push_back(tv->name() + ": element by element" +
                             (v ? " (" + v->reason + ")" : std::string()));
      continue;
    }
    const scheduler::MemoryLayout layout = scheduler::memoryLayout(segment_, tv, info_);
    const int64_t inner = layout.innermostMovingAxis();
    const int64_t logical = inner < 0 ? -1 : logicalPosition(tv, layout.axes[inner]);
    if (logical < 0) {
      vectorNotes_.push_back(tv->name() + ": element by element (no innermost axis)");
      continue;
    }
    if (v->limit < vector_) {
      vectorNotes_.push_back(tv->name() + ": allows only " + std::to_string(v->limit) + " (" +
                             v->reason + "); the vectorized pass checks at run time");
    }
    const bool input = segment_.isInput(tv);
    if (input) candidates_.push_back({tv, false, logical});
    if (segment_.isOutput(tv)) candidates_.push_back({tv, true, logical});
  }
}

const VectorAccess* PointwiseKernel::vectorAccess(const TensorView* tv, bool output) const {
  for (const VectorAccess& access : candidates_) {
    if (access.tv == tv && access.output == output) return &access;
  }
  return nullptr;
}

std::vector<std::string> PointwiseKernel::referenceIndexNames(bool lane) const {
  std::vector<std::string> names;
  for (int64_t k = 0; k < rank_; ++k) {
    const std::string name = "a" + std::to_string(k);
    names.push_back(lane && k == rank_ - 1 ? kLanePrefix + name : name);
  }
  return names;
}

bool PointwiseKernel::laneMapsToInnerAxis(const VectorAccess& access, const ElementIndex& index,
                                          bool shifted) const {
  if (rank_ == 0) return false;
  const std::string lane = kLanePrefix + ("a" + std::to_string(rank_ - 1));
  for (size_t a = 0; a < index.size(); ++a) {
    const bool isInner = static_cast<int64_t>(a) == access.innerAxis;
    if (isInner) {
      if (index[a] == lane) continue;
      const IndexSum* shift = lanes_ != nullptr ? lanes_->shiftOf(index[a]) : nullptr;
      if (!shifted || shift == nullptr || !lanes_->requireAligned({*shift})) return false;
      lanes_->markRows();
    } else if (index[a].find(kLanePrefix) != std::string::npos) {
      return false;
    }
  }
  return true;
}

std::string PointwiseKernel::uniformIndex(const std::string& expression, const std::string& hint) {
  for (const auto& [known, name] : uniforms_) {
    if (known == expression) return name;
  }
  std::string name = hint + std::to_string(uniforms_.size());
  uniforms_.emplace_back(expression, name);
  return name;
}

std::string PointwiseKernel::loadLeaf(const TensorView* tv, const ElementIndex& index,
                                      bool vectorPass, const ExpressionEmitter& emitter) {
  if (auto value = interface_.cpuScalarValue(tv)) return *value;
  FL_CHECK(interface_.isInputParameter(tv), "code generation: ", tv->name(),
           " is neither computed in the segment nor one of its inputs");
  const std::string& param = interface_.parameterName(tv, false);
  const std::string offset = interface_.offset(tv, index);
  std::string inlineLoad = "fl::load_value(" + param + ".data[" + offset + "])";
  if (!vectorPass) return inlineLoad;
  // Loads inside a pad/cat branch are hoisted only where the branch is the
  // same for every lane, under its condition.
  const std::optional<std::string> predicate = emitter.hoistableCondition();
  bool pure = predicate.has_value();
  bool laneDependent = false;
  for (const std::string& i : index) {
    pure = pure && i.find("gathered_idx") == std::string::npos;
    laneDependent = laneDependent || i.find(kLanePrefix) != std::string::npos;
  }
  if (!pure) return inlineLoad;
  std::string key;
  for (const std::string& i : index) key += i + ",";
  int vectorsOfTv = 0;
  for (const HoistedLoad& load : hoisted_) {
    if (load.tv != tv) continue;
    vectorsOfTv += load.vector ? 1 : 0;
    if (load.key == key && (load.predicate.empty() || load.predicate == *predicate)) {
      return hoistedRead(load);
    }
  }
  const VectorAccess* access = vectorAccess(tv, false);
  if (vector_ > 1 && laneDependent && access != nullptr &&
      laneMapsToInnerAxis(*access, index, /*shifted=*/true)) {
    const std::string array =
        param + "_vec" + (vectorsOfTv == 0 ? std::string() : std::to_string(vectorsOfTv));
    hoisted_.push_back(
        {tv, true, key, array, offset, *predicate, rowIndependent(offset, *predicate)});
    const bool known = std::any_of(used_.begin(), used_.end(),
                                   [&](const VectorAccess& u) { return u.tv == tv && !u.output; });
    if (!known) used_.push_back(*access);
    return hoistedRead(hoisted_.back());
  }
  if (laneDependent && vector_ > 1) return inlineLoad;
  const std::string array = param + "_ld" + std::to_string(hoisted_.size());
  hoisted_.push_back(
      {tv, false, key, array, offset, *predicate, rowIndependent(offset, *predicate)});
  return hoistedRead(hoisted_.back());
}

// A load whose offset and branch name none of the row's axes reads the same
// elements for every outer-unrolled row of the chunk.
bool PointwiseKernel::rowIndependent(const std::string& offset,
                                     const std::string& predicate) const {
  if (breakPoint_ == 0 || unrollOuter_ == 1) return false;
  for (int64_t k = 0; k < breakPoint_; ++k) {
    const std::string axis = "a" + std::to_string(k);
    if (mentionsIdentifier(offset, axis) || mentionsIdentifier(predicate, axis)) return false;
  }
  return !mentionsIdentifier(offset, "row") && !mentionsIdentifier(predicate, "row");
}

std::string PointwiseKernel::hoistedRead(const HoistedLoad& load) const {
  const std::string slot = load.array + (load.innerOnly ? "[u % kUnrollInner]" : "[u]");
  return load.vector ? "fl::load_lane(" + slot + ", j)" : slot;
}

std::string PointwiseKernel::vectorCondition() const {
  if (rank_ == 0) return "false";
  // Every vector access aligned, and either chunks that stay in the
  // innermost axis of unit-stride tensors, or (when no lane needs its own
  // index) chunks that cross axes of tensors laid out exactly as when the
  // kernel was generated, where the vectorization analysis proved their
  // runs contiguous.
  std::string aligned;
  bool crossingAligned = true;
  std::string withinAxis = "ref_e" + std::to_string(rank_ - 1) + " % kVector == 0";
  std::string asGenerated;
  for (int64_t k = 0; k < rank_; ++k) {
    asGenerated += (asGenerated.empty() ? "" : " && ") + std::string("ref_e") + std::to_string(k) +
                   " == " + std::to_string(refExtents_[k]);
  }
  for (const VectorAccess& access : used_) {
    const std::string& param = interface_.parameterName(access.tv, access.output);
    const int64_t bytes = ir::sizeInBytes(access.tv->dtype()) * vector_;
    aligned += (aligned.empty() ? "" : " && ") + std::string("(uint64_t)") + param + ".data % " +
               std::to_string(bytes) + " == 0";
    withinAxis += "\n        && " + param + "_s" + std::to_string(access.innerAxis) + " == 1";
    for (int64_t a = 0; a < access.tv->rank(); ++a) {
      if (a == access.innerAxis) continue;
      withinAxis += " && " + param + "_s" + std::to_string(a) + " % kVector == 0";
    }
    const scheduler::MemoryLayout layout = scheduler::memoryLayout(segment_, access.tv, info_);
    // Chunks crossing axes start at multiples of the width in the tensor's
    // innermost contiguous run; outside it, each axis must move by whole
    // vectors, or rows past the first start misaligned (a [32, 5, 6, 32]
    // view with strides [5445, 1089, 66, 1]: a misaligned address on an
    // H200, the differential tester's seed 1811).
    if (!wholeVectorsOutsideRun(layout)) crossingAligned = false;
    for (int64_t k = 0; k < layout.rank(); ++k) {
      const int64_t a = logicalPosition(access.tv, layout.axes[k]);
      if (a < 0 || layout.extents[k] == 1 || layout.strides[k] < 0) continue;
      asGenerated += "\n        && " + param + "_s" + std::to_string(a) +
                     " == " + std::to_string(layout.strides[k]);
    }
  }
  // Vectors inside a row also read their slices and decide their pad and
  // cat branches as one where the shifts and bounds are multiples of the
  // width.
  for (const std::string& requirement : laneRequirements_) {
    withinAxis += "\n        && " + requirement + " % kVector == 0";
  }
  if (aligned.empty()) aligned = "true";
  std::string condition = "(" + aligned + ")\n      && ((" + withinAxis + ")";
  if (crossingAligned && chunksMayCrossAxes()) {
    condition += "\n       || (" + asGenerated + ")";
  }
  return condition + ")";
}

// Whether chunks that cross axes stay whole vectors of `layout`: its
// innermost contiguous run (the axes whose strides chain from 1) is the
// whole tensor, or a multiple of the vector width long with every axis
// outside it moving by a multiple of the width.
bool PointwiseKernel::wholeVectorsOutsideRun(const scheduler::MemoryLayout& layout) const {
  int64_t expected = 1;
  int64_t k = layout.rank() - 1;
  for (; k >= 0; --k) {
    if (layout.extents[k] == 1 || layout.strides[k] == 0) continue;
    if (layout.strides[k] != expected) break;
    expected *= layout.extents[k];
  }
  if (k < 0) return true;  // one contiguous run: chunks never leave it
  // A run that is empty (a strided innermost axis: seed 100190 read every
  // other element of a stride-2 slice as if contiguous) or that vectors
  // cross (rows of 6 in 4-wide chunks: seed 101204, misaligned) holds no
  // whole chunks.
  if (expected == 1 || expected % vector_ != 0) return false;
  for (; k >= 0; --k) {
    if (layout.extents[k] == 1 || layout.strides[k] == 0) continue;
    if (layout.strides[k] < 0 || layout.strides[k] % vector_ != 0) return false;
  }
  return true;
}

// Whether `code`, evaluated once at a chunk's first element, means the same
// for every element of a chunk that crosses axes: every reference axis it
// names changes at multiples of the extents inner to it, which must then be
// multiples of the vector width. Axes before the break point never change
// inside a row's chunk.
bool PointwiseKernel::holdsAcrossChunks(const std::string& code) const {
  int64_t innermost = -1;
  for (int64_t k = 0; k < rank_; ++k) {
    if (mentionsIdentifier(code, "a" + std::to_string(k))) innermost = k;
  }
  if (innermost < 0 || innermost < breakPoint_) return true;
  int64_t span = 1;
  for (int64_t k = innermost + 1; k < rank_; ++k) span *= refExtents_[k];
  return span % vector_ == 0;
}

// The as-generated alternative of vector_ok: chunks that run across axes of
// tensors laid out as when the kernel was generated. Only where no lane
// needs its own index, and everything done once per chunk at its first
// element holds for all of it:
// - each hoisted scalar load (a per-channel scale over [2, 8, 6, 6] changes
//   every 36 elements: 8-wide chunks cross it, and lanes past the boundary
//   read the wrong channel);
// - the lane code: its scalar stores, whose offsets name no lane, and values
//   computed from reference indices (an iota). With the reference's
//   innermost axis a broadcast of extent 1, no lane is named anywhere, yet a
//   4-wide chunk spans 4 positions of the axis outside it: a store there
//   wrote the chunk's first element 4 times and left 3 of 4 unwritten (NaN
//   in 768 of 1024 elements on an H200, issue 42 item 2(b)).
//
// And no tensor is read as vectors at two positions: the vectorization
// analysis proved contiguous runs for the one access it saw, while a second
// read (a permute of the same input, T0 and permute(T0)) walks other axes:
// a chunk crossing its rows read across them, misaligned (the differential
// tester's seed 335310 on an H200).
bool PointwiseKernel::chunksMayCrossAxes() const {
  if (!laneIndependent_ || !holdsAcrossChunks(laneCode_)) return false;
  for (size_t i = 0; i < hoisted_.size(); ++i) {
    if (!hoisted_[i].vector) continue;
    for (size_t k = i + 1; k < hoisted_.size(); ++k) {
      if (hoisted_[k].vector && hoisted_[k].tv == hoisted_[i].tv) return false;
    }
  }
  for (const HoistedLoad& load : hoisted_) {
    if (load.vector) continue;
    if (!holdsAcrossChunks(load.offset) || !holdsAcrossChunks(load.predicate)) return false;
  }
  return true;
}

// Declares `base`/`row`/`col` for unrolled chunk u and the reference indices
// a0..a{rank-1} of its first element; `element` adds the lane j to the
// chunk's position (the element-by-element pass).
std::string PointwiseKernel::positionCode(bool vectorPass, bool element, int pad) const {
  const std::string p = indent(pad);
  std::string code;
  auto decompose = [&](const std::string& position, int64_t begin, int64_t end) {
    if (begin >= end) return;
    if (end - begin == 1) {
      code += p + "const index_t a" + std::to_string(begin) + " = " + position + ";\n";
      return;
    }
    code += p + "index_t rest_" + position + " = " + position + ";\n";
    for (int64_t k = end - 1; k > begin; --k) {
      const std::string ks = std::to_string(k);
      code += p + "const index_t a" + ks + " = rest_" + position + " % ref_e" + ks + "; rest_" +
              position + " /= ref_e" + ks + ";\n";
    }
    code += p + "const index_t a" + std::to_string(begin) + " = rest_" + position + ";\n";
  };
  // Positions are computed in 64 bits and compared before they become
  // index_t: past the last chunk they may exceed the 32-bit range.
  const std::string lane = element ? " + j" : "";
  if (breakPoint_ == 0) {
    code += p +
            "const long long base_wide = ((long long)(block * kUnroll + u) * threads + tid)"
            " * kVector" +
            lane + ";\n";
    code += p + "if (base_wide >= total) continue;\n";
    code += p + "const index_t base = (index_t)base_wide;\n";
    decompose("base", 0, rank_);
  } else {
    code += p +
            "const long long row_wide = ((long long)bo * kUnrollOuter + u / kUnrollInner)"
            " * kBlockY + threadIdx.y;\n";
    code += p +
            "const long long col_wide = (((long long)bi * kUnrollInner + u % kUnrollInner)"
            " * kBlockX + threadIdx.x) * kVector" +
            lane + ";\n";
    code += p + "if (row_wide >= outer_total || col_wide >= inner_total) continue;\n";
    code += p + "const index_t row = (index_t)row_wide;\n";
    code += p + "const index_t col = (index_t)col_wide;\n";
    decompose("row", 0, breakPoint_);
    decompose("col", breakPoint_, rank_);
  }
  (void)vectorPass;
  return code;
}

std::string PointwiseKernel::body(bool vectorPass) {
  hoisted_.clear();
  used_.clear();
  const bool lanes = vectorPass && rank_ > 0;
  const int pad = breakPoint_ == 0 ? 6 : 8;
  ExpressionHooks hooks;
  ExpressionEmitter* emitterPtr = nullptr;
  hooks.isLeaf = [&](const TensorView* tv) { return segment_.isInput(tv); };
  hooks.loadLeaf = [&](const TensorView* tv, const ElementIndex& index) {
    return loadLeaf(tv, index, vectorPass, *emitterPtr);
  };
  hooks.symbolicScalar = [&](const ir::Scalar* s) { return interface_.symbolicScalar(s); };
  hooks.uniformIndex = [&](const std::string& expression, const std::string& hint) {
    return uniformIndex(expression, hint);
  };
  ExpressionEmitter emitter(segment_, hooks, /*indexed=*/true);
  emitterPtr = &emitter;
  emitter.setIndent(pad + (lanes ? 4 : 2));
  // Lane j of a chunk is lane_a{rank-1} = a{rank-1} + j.
  std::optional<VectorLanes> vectorLanes;
  if (lanes && vector_ > 1) {
    const std::string base = "a" + std::to_string(rank_ - 1);
    vectorLanes.emplace(kLanePrefix + base, base, vector_);
    emitter.setVectorLanes(&*vectorLanes);
  }
  lanes_ = vectorLanes ? &*vectorLanes : nullptr;
  emitter.allowApproximations();

  // Compute and store every output, one lane (or element) at a time.
  const std::vector<std::string> refIndex = referenceIndexNames(lanes);
  std::string laneCode;
  std::string afterLanes;
  std::string vectorDecls;
  const std::string lp = indent(emitter.indent());
  const std::vector<ir::Val*> outputs = segment_.outputVals();
  std::vector<const TensorView*> written;
  for (const ir::Val* val : outputs) {
    const auto* out = val->as<TensorView>();
    if (std::find(written.begin(), written.end(), out) != written.end()) continue;
    written.push_back(out);
    const OutputAccess access = walk_->outputAccess(out, refIndex, interface_);
    const bool predicateHasLane = access.predicate.find(kLanePrefix) != std::string::npos;
    // Past an output's end its value is never stored, and computing it would
    // read past its producers' ends (a slice of an input beside a longer
    // cat: seed 201035 read rows 3..10 of a 3-row input on an H200).
    const std::string value =
        access.bounded ? emitter.valueWhere(out, access.index, access.predicate, !predicateHasLane)
                       : emitter.storedValue(out, access.index);
    laneCode += emitter.takeCode();
    const std::string& param = interface_.parameterName(out, true);
    const std::string element(elementType(out->dtype()));
    const VectorAccess* vector = vectorAccess(out, true);
    if (lanes && vector_ > 1 && vector != nullptr && !predicateHasLane &&
        laneMapsToInnerAxis(*vector, access.index)) {
      used_.push_back(*vector);
      vectorDecls += indent(pad + 2) + "fl::Array<" + element + ", kVector> " + param + "_vec;\n";
      laneCode += lp + param + "_vec[j] = fl::to_element<" + element + ">(" + value + ");\n";
      std::string store = "fl::store_vector<kVector>(" + param + ".data + (" +
                          interface_.offset(out, access.index, true) + "), " + param + "_vec);";
      if (!access.predicate.empty()) store = "if (" + access.predicate + ") " + store;
      afterLanes += indent(pad + 2) + "{\n" + indent(pad + 4) + "const index_t " + refIndex.back() +
                    " = a" + std::to_string(rank_ - 1) + ";\n" + indent(pad + 4) + store + "\n" +
                    indent(pad + 2) + "}\n";
      continue;
    }
    std::string store = param + ".data[" + interface_.offset(out, access.index, true) +
                        "] = fl::to_element<" + element + ">(" + value + ");";
    if (!access.predicate.empty()) store = "if (" + access.predicate + ") " + store;
    laneCode += lp + store + "\n";
  }

  std::string code;
  const std::string p = indent(pad);
  if (!vectorPass) {
    // Element by element: the chunks of the vectorized pass, one element at
    // a time, each with its own tail predicate.
    code += p + "#pragma unroll\n" + p + "for (int u = 0; u < kUnroll; ++u) {\n";
    code += p + "  for (int j = 0; j < kVector; ++j) {\n";
    code += positionCode(false, true, pad + 4);
    // The lane loop's code was emitted for indentation pad + 2.
    std::string shifted;
    for (size_t at = 0; at < laneCode.size();) {
      const size_t end = laneCode.find('\n', at);
      shifted += "  " + laneCode.substr(at, end - at + 1);
      at = end + 1;
    }
    code += shifted;
    code += p + "  }\n" + p + "}\n";
    lanes_ = nullptr;
    return code;
  }
  if (vectorLanes) laneRequirements_ = vectorLanes->requirements();

  // Phase 1: every load of the thread's chunks before any compute.
  for (const HoistedLoad& load : hoisted_) {
    const std::string element(elementType(load.tv->dtype()));
    const std::string slots = load.innerOnly ? "[kUnrollInner];\n" : "[kUnroll];\n";
    if (load.vector) {
      code += p + "fl::Array<" + element + ", kVector> " + load.array + slots;
    } else {
      code += p + std::string(valueType(load.tv->dtype())) + " " + load.array + slots;
    }
  }
  if (!hoisted_.empty()) {
    code += p + "#pragma unroll\n" + p + "for (int u = 0; u < kUnroll; ++u) {\n";
    code += positionCode(true, false, pad + 2);
    if (rank_ > 0) {
      code += indent(pad + 2) + "const index_t " + refIndex.back() + " = a" +
              std::to_string(rank_ - 1) + ";\n";
    }
    for (const HoistedLoad& load : hoisted_) {
      const std::string& param = interface_.parameterName(load.tv, false);
      code += indent(pad + 2);
      // The first row of the chunk loads what every row shares (u < kUnrollInner
      // is that row, and u its inner slot); later rows are never valid when it
      // is not.
      if (load.innerOnly) code += "if (u < kUnrollInner) ";
      if (!load.predicate.empty()) code += "if (" + load.predicate + ") ";
      if (load.vector) {
        code += load.array + "[u] = fl::load_vector<kVector>(" + param + ".data + (" + load.offset +
                "));\n";
      } else {
        code += load.array + "[u] = fl::load_value(" + param + ".data[" + load.offset + "]);\n";
      }
    }
    code += p + "}\n";
  }
  // Phase 2: compute and store.
  code += p + "#pragma unroll\n" + p + "for (int u = 0; u < kUnroll; ++u) {\n";
  code += positionCode(true, false, pad + 2);
  code += vectorDecls;
  const bool laneNamed = laneCode.find(kLanePrefix) != std::string::npos;
  // Shifted vectors and branches decided per vector need vectors inside a
  // row even where no lane is named.
  laneIndependent_ = !laneNamed && !(vectorLanes && vectorLanes->usesRows());
  laneCode_ = laneCode;
  if (lanes) {
    code += indent(pad + 2) + "#pragma unroll\n" + indent(pad + 2) +
            "for (int j = 0; j < kVector; ++j) {\n";
    if (laneNamed) {
      code += indent(pad + 4) + "const index_t " + refIndex.back() + " = a" +
              std::to_string(rank_ - 1) + " + j;\n";
    }
    code += laneCode;
    code += indent(pad + 2) + "}\n";
  } else {
    code += indent(pad + 2) + "const int j = 0;\n" + indent(pad + 2) + "(void)j;\n" + laneCode;
  }
  code += afterLanes;
  code += p + "}\n";
  lanes_ = nullptr;
  return code;
}

// One block for each chunk of blocks. The params' check (pointwise_scheduler)
// refuses a grid past the launch limits, so none is clamped here.
LaunchConfig PointwiseKernel::launchConfig() const {
  int64_t total = 1;
  for (int64_t e : refExtents_) {
    FL_CHECK(e >= 0, "code generation: the extents of ", reference_->name(), " are not bound");
    total *= e;
  }
  int64_t gx = 1, gy = 1;
  if (breakPoint_ == 0) {
    const int64_t perBlock = params_.blockDimX * params_.blockDimY * unroll_ * vector_;
    gx = std::max<int64_t>(1, ceilDiv(total, perBlock));
  } else {
    int64_t outer = 1;
    int64_t inner = 1;
    for (int64_t k = 0; k < rank_; ++k) (k < breakPoint_ ? outer : inner) *= refExtents_[k];
    const int64_t gridInner =
        std::max<int64_t>(1, ceilDiv(inner, params_.blockDimX * unrollInner_ * vector_));
    const int64_t gridOuter =
        std::max<int64_t>(1, ceilDiv(outer, params_.blockDimY * unrollOuter_));
    gx = params_.flipGrid ? gridOuter : gridInner;
    gy = params_.flipGrid ? gridInner : gridOuter;
  }
  FL_CHECK(gx <= kMaxGridX && gy <= kMaxGridYZ, "code generation: ", name_, " needs a grid of ", gx,
           " x ", gy, " blocks, past the launch limits (", kMaxGridX, " x ", kMaxGridYZ,
           "); the pointwise params should have been refused");
  LaunchConfig launch;
  launch.block = {params_.blockDimX, params_.blockDimY, 1};
  launch.grid = {gx, gy, 1};
  return launch;
}

GeneratedKernel PointwiseKernel::build() {
  analyze();
  GeneratedKernel kernel;
  kernel.name = name_;
  kernel.parameters = interface_.parameters();
  kernel.int64Indexing = interface_.int64Indexing();
  kernel.launch = launchConfig();

  const std::string vectorBody = body(true);
  const bool fallback = vector_ > 1;
  const std::string condition = fallback ? vectorCondition() : "true";
  const std::string elementBody = fallback ? body(false) : std::string();

  std::string src = kernelComment(name_, "pointwise", segment_, params_.toString());
  src += "//\n// Reference " + reference_->name() + ", walked in allocation order:";
  for (int64_t k = 0; k < rank_; ++k) {
    src += " a" + std::to_string(k) + " = axis " + std::to_string(refLogical_[k]) + " (" +
           std::to_string(refExtents_[k]) + ")";
    if (breakPoint_ > 0 && k == breakPoint_ - 1) src += " |";
  }
  src += "\n";
  for (const std::string& note : vectorNotes_) src += "// " + note + "\n";
  for (const std::string& note : interface_.specialized()) {
    src += "// specialized: " + note + "\n";
  }
  src += "#include \"fuserlab_device.cuh\"\n\n";
  src += interface_.signature(name_) + " {\n";
  src += kKernelEntry;
  src += interface_.prologue(2);
  src += "  constexpr int kVector = " + std::to_string(vector_) + ";\n";
  src += "  constexpr int kUnroll = " + std::to_string(unroll_) + ";\n";
  // The launch's block (launch.block is the params' block).
  src += "  constexpr int kBlockX = " + std::to_string(params_.blockDimX) + ";\n";
  src += "  constexpr int kBlockY = " + std::to_string(params_.blockDimY) + ";\n";
  const std::string& ref = interface_.parameterName(reference_, true);
  for (int64_t k = 0; k < rank_; ++k) src += walk_->extentDeclaration(k, ref, true);
  if (std::all_of(refExtents_.begin(), refExtents_.end(), [](int64_t e) { return e > 0; })) {
    for (KernelParameter& p : kernel.parameters) {
      if (p.segmentOutput < 0 || p.name != ref || p.rank != rank_) continue;
      p.builtInSizes.assign(static_cast<size_t>(rank_), 0);
      for (int64_t k = 0; k < rank_; ++k) {
        p.builtInSizes[static_cast<size_t>(refLogical_[k])] = refExtents_[k];
      }
    }
  }
  for (const auto& [expression, name] : uniforms_) {
    src += "  const index_t " + name + " = " + expression + ";\n";
  }
  auto product = [&](int64_t begin, int64_t end) {
    std::string text;
    for (int64_t k = begin; k < end; ++k)
      text += (text.empty() ? "ref_e" : " * ref_e") + std::to_string(k);
    return text.empty() ? std::string("(index_t)1") : text;
  };
  if (breakPoint_ == 0) {
    src += "  const index_t total = " + product(0, rank_) + ";\n";
    src += "  constexpr index_t threads = (index_t)kBlockX * kBlockY;\n";
    src += "  const index_t tid = (index_t)(threadIdx.y * kBlockX + threadIdx.x);\n";
  } else {
    src += "  constexpr int kUnrollInner = " + std::to_string(unrollInner_) + ";\n";
    src += "  constexpr int kUnrollOuter = " + std::to_string(unrollOuter_) + ";\n";
    src += "  const index_t outer_total = " + product(0, breakPoint_) + ";\n";
    src += "  const index_t inner_total = " + product(breakPoint_, rank_) + ";\n";
  }
  if (fallback) src += "  const bool vector_ok = " + condition + ";\n";

  // Each block takes one chunk of blocks: the launch's grid covers them all
  // (launchConfig). A grid-stride loop's state cost registers (the
  // define_tensor_sizes_strides example: 40 -> 32, 12 -> 16 blocks an SM,
  // its 2048 blocks in one wave instead of two).
  std::string loops;
  if (breakPoint_ == 0) {
    loops += "  {\n    const index_t block = (index_t)blockIdx.x;\n";
  } else {
    const std::string bo = params_.flipGrid ? "x" : "y";
    const std::string bi = params_.flipGrid ? "y" : "x";
    loops += "  {\n    const index_t bo = (index_t)blockIdx." + bo + ";\n";
    loops += "    {\n      const index_t bi = (index_t)blockIdx." + bi + ";\n";
  }
  const std::string p = indent(breakPoint_ == 0 ? 4 : 6);
  src += loops;
  if (fallback) {
    src += p + "if (vector_ok) {\n" + vectorBody + p + "} else {\n" + elementBody + p + "}\n";
  } else {
    // Without vectorization the body sits one level less deep.
    std::string shifted;
    for (size_t at = 0; at < vectorBody.size();) {
      const size_t end = vectorBody.find('\n', at);
      shifted += vectorBody.substr(at + 2, end - at - 1);
      at = end + 1;
    }
    src += shifted;
  }
  src += breakPoint_ == 0 ? "  }\n" : "    }\n  }\n";
  src += "}\n";
  kernel.source = std::move(src);
  kernel.waitsForPriorGrids = true;
  return kernel;
}

}  // namespace

GeneratedKernel emitPointwiseKernel(const ir::Fusion& segment,
                                    const scheduler::PointwiseParams& params,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    std::string_view name) {
  return PointwiseKernel(segment, params, info, name).build();
}

}  // namespace fuserlab::codegen
