#include "core/codegen/transpose_emitter.h"

#include <algorithm>
#include <optional>

#include "core/codegen/expression_emitter.h"
#include "core/codegen/kernel_interface.h"
#include "core/codegen/reference_walk.h"
#include "core/ir/error.h"
#include "core/scheduler/analysis/memory_layout.h"

namespace fuserlab::codegen {
namespace {

using ir::TensorView;

// A phase's loop over the tile in vectors is unrolled up to this many steps
// a thread; then phase 2's direct loads of all its steps are issued before
// phase 1's.
constexpr int64_t kUnrolledSteps = 8;
// The registers (32-bit words) those early loads may hold a thread.
constexpr int64_t kPrefetchWords = 32;

std::string indent(int spaces) { return std::string(static_cast<size_t>(spaces), ' '); }
std::string str(int64_t value) { return std::to_string(value); }

// A group-1 input read into shared memory, at the index phase 2 asked for.
struct StagedInput {
  const TensorView* tv = nullptr;
  ElementIndex index;
  std::string array;  // the shared-memory tile
};

// A tensor accessed with vectors of `width` along its logical axis `axis`.
struct VectorUse {
  const TensorView* tv = nullptr;
  bool output = false;
  int64_t axis = -1;
  int64_t width = 1;
};

// A load before phase 2's lane loop.
struct HoistedLoad {
  const TensorView* tv = nullptr;
  bool vector = false;
  std::string key;
  std::string name;
  std::string offset;
};

class TransposeKernel {
 public:
  TransposeKernel(const ir::Fusion& segment, const scheduler::TransposeParams& params,
                  const scheduler::SegmentRuntimeInfo& info, std::string_view name)
      : segment_(segment),
        params_(params),
        info_(info),
        name_(name),
        interface_(segment, info, !params.useInt32Indexing),
        walk_(segment, info) {}

  GeneratedKernel build();

 private:
  void findGroups();
  int64_t innermostLogical(const TensorView* tv) const;
  std::string axisVar(int64_t k) const { return "a" + str(k); }
  std::string laneVar() const { return "lane_a" + str(inner2_); }
  std::vector<std::string> refIndex(bool lane) const;
  std::string body(int64_t v1, int64_t v2, int pad);
  std::string phase2(int64_t v1, int64_t v2, int pad);
  std::string phase1(int64_t v1, int pad, const std::string& afterLoads);
  int64_t stagedEarlyWords(int64_t v1) const;
  std::string phase3(int64_t v1, int pad);
  std::string tilePosition(bool alongB, int64_t width, int pad) const;
  int64_t tileSteps(int64_t width) const;
  // Vector accesses only: the element-wise body is the fallback, and its
  // registers count against the vector body's occupancy (unrolled, the
  // transpose + add's kernel took 72 registers against 48).
  bool unrolled(int64_t width) const { return width > 1 && tileSteps(width) <= kUnrolledSteps; }
  std::string tileLoop(int64_t width, int pad) const;
  std::string loadLeaf(const TensorView* tv, const ElementIndex& index, int64_t v2,
                       const ExpressionEmitter& emitter);
  bool vectorAlong(const ElementIndex& index, int64_t axis, const std::string& var) const;
  std::string vectorCondition() const;

  const ir::Fusion& segment_;
  const scheduler::TransposeParams& params_;
  const scheduler::SegmentRuntimeInfo& info_;
  std::string name_;
  KernelInterface interface_;
  ReferenceWalk walk_;

  int64_t rank_ = 0;
  int64_t inner1_ = -1;  // B: group 1's innermost axis (reference axis)
  int64_t inner2_ = -1;  // A: the reference's innermost axis
  std::vector<const TensorView*> group1_;
  std::vector<const TensorView*> group2_;
  std::vector<StagedInput> staged_;
  std::vector<const TensorView*> stagedOutputs_;
  std::vector<VectorUse> vectorUses_;  // of the vectorized body
  std::vector<HoistedLoad> hoisted_;
  // Phase 2's direct loads of every step, issued before phase 1 (empty when
  // they stay in phase 2's loop).
  std::string prefetch_;
  bool collectUses_ = false;
};

int64_t TransposeKernel::innermostLogical(const TensorView* tv) const {
  const scheduler::MemoryLayout layout = scheduler::memoryLayout(segment_, tv, info_);
  const int64_t k = layout.innermostMovingAxis();
  return k < 0 ? -1 : logicalPosition(tv, layout.axes[k]);
}

void TransposeKernel::findGroups() {
  rank_ = walk_.rank();
  const TensorView* ref = walk_.reference();
  const int64_t refInner = innermostLogical(ref);
  FL_CHECK(refInner >= 0, "code generation: the reference ", ref->name(),
           " of the transpose has no axis it moves along in memory");
  inner2_ = walk_.referenceAxisWalking(ref, ref->logicalNoReductions()[refInner]);
  FL_ASSERT(inner2_ >= 0, "the reference's innermost axis is not a reference axis");
  for (const TensorView* tv : scheduler::inputsAndOutputs(segment_)) {
    const int64_t inner = innermostLogical(tv);
    if (inner < 0) continue;
    const int64_t k = walk_.referenceAxisWalking(tv, tv->logicalNoReductions()[inner]);
    const scheduler::TensorTrace* trace = walk_.trace().find(tv);
    if (k < 0 || trace == nullptr) continue;
    if (k == inner2_) {
      group2_.push_back(tv);
    } else if (trace->moves(static_cast<size_t>(inner2_)) && (inner1_ < 0 || k == inner1_)) {
      inner1_ = k;
      group1_.push_back(tv);
    }
  }
  FL_CHECK(inner1_ >= 0,
           "code generation: no tensor of the transpose segment has another "
           "innermost axis than the reference ",
           ref->name());
  for (const TensorView* tv : group1_) {
    if (segment_.isOutput(tv)) stagedOutputs_.push_back(tv);
  }
}

std::vector<std::string> TransposeKernel::refIndex(bool lane) const {
  std::vector<std::string> names;
  for (int64_t k = 0; k < rank_; ++k) {
    names.push_back(lane && k == inner2_ ? laneVar() : axisVar(k));
  }
  return names;
}

bool TransposeKernel::vectorAlong(const ElementIndex& index, int64_t axis,
                                  const std::string& var) const {
  if (axis < 0 || axis >= static_cast<int64_t>(index.size())) return false;
  for (size_t a = 0; a < index.size(); ++a) {
    if (static_cast<int64_t>(a) == axis) {
      if (index[a] != var) return false;
    } else if (mentionsIdentifier(index[a], var)) {
      return false;
    }
  }
  return true;
}

std::string TransposeKernel::loadLeaf(const TensorView* tv, const ElementIndex& index, int64_t v2,
                                      const ExpressionEmitter& emitter) {
  if (auto value = interface_.cpuScalarValue(tv)) return *value;
  const std::string& param = interface_.parameterName(tv, false);
  const std::string offset = interface_.offset(tv, index);
  std::string inlineLoad = "fl::load_value(" + param + ".data[" + offset + "])";
  bool pure = emitter.scopeDepth() == 1;
  for (const std::string& i : index) pure = pure && i.find("gathered_idx") == std::string::npos;
  const bool group1 = std::find(group1_.begin(), group1_.end(), tv) != group1_.end();
  if (group1 && pure) {
    for (const StagedInput& s : staged_) {
      if (s.tv == tv) {
        if (s.index != index) return inlineLoad;  // another element than the tile's
        return "fl::load_value(" + s.array + "[la + j][lb])";
      }
    }
    staged_.push_back({tv, index, "smem_" + param});
    return "fl::load_value(smem_" + param + "[la + j][lb])";
  }
  if (!pure) return inlineLoad;
  std::string key;
  for (const std::string& i : index) key += i + ",";
  for (const HoistedLoad& load : hoisted_) {
    if (load.tv == tv && load.key == key) {
      return load.vector ? "fl::load_value(" + load.name + "[j])" : load.name;
    }
  }
  const bool laneDependent = std::any_of(index.begin(), index.end(), [&](const std::string& i) {
    return mentionsIdentifier(i, laneVar());
  });
  const bool group2 = std::find(group2_.begin(), group2_.end(), tv) != group2_.end();
  if (laneDependent && v2 > 1 && group2 && vectorAlong(index, innermostLogical(tv), laneVar())) {
    const std::string name = param + "_vec" + str(static_cast<int64_t>(hoisted_.size()));
    hoisted_.push_back({tv, true, key, name, offset});
    if (collectUses_) vectorUses_.push_back({tv, false, innermostLogical(tv), v2});
    return "fl::load_value(" + name + "[j])";
  }
  if (laneDependent && v2 > 1) return inlineLoad;
  std::string name = param + "_ld" + str(static_cast<int64_t>(hoisted_.size()));
  hoisted_.push_back({tv, false, key, name, offset});
  return name;
}

// The tile-local position of a thread's chunk (`alongB`: B fastest, as
// phases 1 and 3 walk; else A fastest) and the reference indices of its
// first element; skips chunks outside the tensor.
std::string TransposeKernel::tilePosition(bool alongB, int64_t width, int pad) const {
  const std::string p = indent(pad);
  std::string code;
  if (alongB) {
    code += p + "const int lb = e % kTile1;\n" + p + "const int la = e / kTile1;\n";
  } else {
    code += p + "const int la = e % kTile2;\n" + p + "const int lb = e / kTile2;\n";
  }
  code += p + "const index_t " + axisVar(inner2_) + " = tile_a0 + la;\n";
  code += p + "const index_t " + axisVar(inner1_) + " = tile_b0 + lb;\n";
  code += p + "if (" + axisVar(inner2_) + " >= ref_e" + str(inner2_) + " || " + axisVar(inner1_) +
          " >= ref_e" + str(inner1_) + ") continue;\n";
  (void)width;
  return code;
}

// A thread's chunks of `width` elements in one tile: the block's size is
// the launch's, so the loop's trip count is a constant.
int64_t TransposeKernel::tileSteps(int64_t width) const {
  const int64_t perStep = params_.blockDim * width;
  return (params_.tileSize1 * params_.tileSize2 + perStep - 1) / perStep;
}

// The loop over a thread's chunks of the tile (`e`: the chunk's first
// element in the tile), unrolled where it is short.
std::string TransposeKernel::tileLoop(int64_t width, int pad) const {
  const std::string p = indent(pad);
  std::string code;
  // The rest stay rolled: ptxas would unroll a constant trip count itself.
  code += p + (unrolled(width) ? "#pragma unroll\n" : "#pragma unroll 1\n");
  code += p + "for (int step = 0; step < " + str(tileSteps(width)) + "; ++step) {\n";
  code += p + "  const int e = (tid + step * threads) * " + str(width) + ";\n";
  if ((params_.tileSize1 * params_.tileSize2) % (params_.blockDim * width) != 0) {
    code += p + "  if (e >= kTile1 * kTile2) continue;\n";
  }
  return code;
}

std::string TransposeKernel::phase2(int64_t v1, int64_t v2, int pad) {
  hoisted_.clear();
  prefetch_.clear();
  const std::string p = indent(pad);
  ExpressionHooks hooks;
  ExpressionEmitter* emitterPtr = nullptr;
  hooks.isLeaf = [&](const TensorView* tv) { return segment_.isInput(tv); };
  hooks.loadLeaf = [&](const TensorView* tv, const ElementIndex& index) {
    return loadLeaf(tv, index, v2, *emitterPtr);
  };
  hooks.symbolicScalar = [&](const ir::Scalar* s) { return interface_.symbolicScalar(s); };
  ExpressionEmitter emitter(segment_, hooks, /*indexed=*/true);
  emitter.allowApproximations();
  emitterPtr = &emitter;
  emitter.setIndent(pad + 4);
  const std::string lp = indent(pad + 4);
  const std::vector<std::string> ref = refIndex(true);

  std::string laneCode;
  std::string declarations;
  std::string stores;
  std::vector<const TensorView*> written;
  for (const ir::Val* val : segment_.outputVals()) {
    const auto* out = val->as<TensorView>();
    if (std::find(written.begin(), written.end(), out) != written.end()) continue;
    written.push_back(out);
    const std::string& param = interface_.parameterName(out, true);
    const std::string element(elementType(out->dtype()));
    const bool staged =
        std::find(stagedOutputs_.begin(), stagedOutputs_.end(), out) != stagedOutputs_.end();
    // Past an output's end (the walk passes it through slice, pad or cat)
    // its value is never stored and may read past its producers' ends.
    auto valueOf = [&](const OutputAccess& access) {
      return access.bounded ? emitter.valueWhere(out, access.index, access.predicate, false)
                            : emitter.storedValue(out, access.index);
    };
    if (staged) {
      const std::string value = valueOf(walk_.outputAccess(out, ref, interface_));
      laneCode += emitter.takeCode();
      laneCode +=
          lp + "smem_" + param + "[la + j][lb] = fl::to_element<" + element + ">(" + value + ");\n";
      continue;
    }
    const OutputAccess access = walk_.outputAccess(out, ref, interface_);
    const std::string value = valueOf(access);
    laneCode += emitter.takeCode();
    const bool group2 = std::find(group2_.begin(), group2_.end(), out) != group2_.end();
    if (v2 > 1 && group2 && !mentionsIdentifier(access.predicate, laneVar()) &&
        vectorAlong(access.index, innermostLogical(out), laneVar())) {
      if (collectUses_) vectorUses_.push_back({out, true, innermostLogical(out), v2});
      declarations +=
          indent(pad + 2) + "fl::Array<" + element + ", " + str(v2) + "> " + param + "_vec;\n";
      laneCode += lp + param + "_vec[j] = fl::to_element<" + element + ">(" + value + ");\n";
      std::string store = "fl::store_vector<" + str(v2) + ">(" + param + ".data + (" +
                          interface_.offset(out, access.index, true) + "), " + param + "_vec);";
      if (!access.predicate.empty()) store = "if (" + access.predicate + ") " + store;
      stores += indent(pad + 2) + store + "\n";
      continue;
    }
    std::string store = param + ".data[" + interface_.offset(out, access.index, true) +
                        "] = fl::to_element<" + element + ">(" + value + ");";
    if (!access.predicate.empty()) store = "if (" + access.predicate + ") " + store;
    laneCode += lp + store + "\n";
  }

  // With a short, unrolled loop and staged inputs, the direct loads of all
  // of a thread's steps go before phase 1, so both groups' loads of the
  // tile are in flight together (transpose + add 8192x4096 on an H100:
  // 67.9 -> 65.4 us); otherwise each step loads its own.
  int64_t words = 0;
  for (const HoistedLoad& load : hoisted_) {
    const int64_t bytes = load.vector ? ir::sizeInBytes(load.tv->dtype()) * v2
                                      : std::max<int64_t>(4, ir::sizeInBytes(load.tv->dtype()));
    words += (bytes + 3) / 4;
  }
  const bool early =
      !staged_.empty() && !hoisted_.empty() && unrolled(v2) &&
      words * tileSteps(v2) + std::max<int64_t>(0, stagedEarlyWords(v1)) <= kPrefetchWords;
  auto loadExpression = [&](const HoistedLoad& load) {
    const std::string& param = interface_.parameterName(load.tv, false);
    return load.vector
               ? "fl::load_vector<" + str(v2) + ">(" + param + ".data + (" + load.offset + "))"
               : "fl::load_value(" + param + ".data[" + load.offset + "])";
  };
  auto loadType = [&](const HoistedLoad& load) {
    return load.vector
               ? "fl::Array<" + std::string(elementType(load.tv->dtype())) + ", " + str(v2) + ">"
               : std::string(valueType(load.tv->dtype()));
  };
  if (early) {
    prefetch_ = p + "// Phase 2's direct loads of this thread's " + str(tileSteps(v2)) +
                " step(s), before phase 1's.\n";
    for (const HoistedLoad& load : hoisted_) {
      prefetch_ += p + loadType(load) + " " + load.name + "_early[" + str(tileSteps(v2)) + "];\n";
    }
    prefetch_ += tileLoop(v2, pad);
    prefetch_ += tilePosition(false, v2, pad + 2);
    prefetch_ += indent(pad + 2) + "const index_t " + laneVar() + " = " + axisVar(inner2_) + ";\n";
    prefetch_ += indent(pad + 2) + "(void)" + laneVar() + ";\n";
    for (const HoistedLoad& load : hoisted_) {
      prefetch_ += indent(pad + 2) + load.name + "_early[step] = " + loadExpression(load) + ";\n";
    }
    prefetch_ += p + "}\n";
  }

  std::string code =
      p + "// Phase 2: compute the tile along A, " + str(v2) + " element(s) per access.\n";
  code += tileLoop(v2, pad);
  code += tilePosition(false, v2, pad + 2);
  code += indent(pad + 2) + "const index_t " + laneVar() + " = " + axisVar(inner2_) + ";\n";
  code += indent(pad + 2) + "(void)" + laneVar() + ";\n";
  for (const HoistedLoad& load : hoisted_) {
    code += indent(pad + 2) + "const " + loadType(load) + " " + load.name + " = " +
            (early ? load.name + "_early[step]" : loadExpression(load)) + ";\n";
  }
  code += declarations;
  code += indent(pad + 2) + "#pragma unroll\n" + indent(pad + 2) + "for (int j = 0; j < " +
          str(v2) + "; ++j) {\n";
  code += indent(pad + 4) + "const index_t " + laneVar() + " = " + axisVar(inner2_) + " + j;\n";
  code += indent(pad + 4) + "(void)" + laneVar() + ";\n";
  code += laneCode;
  code += indent(pad + 2) + "}\n";
  code += stores;
  code += p + "}\n";
  (void)v1;
  return code;
}

// The registers phase 1's loads of all its steps would hold a thread, or -1
// where they stay in its loop (a rolled loop, or an input not read in
// vectors).
int64_t TransposeKernel::stagedEarlyWords(int64_t v1) const {
  if (staged_.empty() || !unrolled(v1)) return -1;
  int64_t words = 0;
  for (const StagedInput& s : staged_) {
    if (!vectorAlong(s.index, innermostLogical(s.tv), axisVar(inner1_))) return -1;
    words += (ir::sizeInBytes(s.tv->dtype()) * v1 + 3) / 4;
  }
  return words * tileSteps(v1);
}

// `afterLoads`: code to place after phase 1's loads and before its stores
// to shared memory (phase 2's early loads).
std::string TransposeKernel::phase1(int64_t v1, int pad, const std::string& afterLoads) {
  if (staged_.empty()) return afterLoads;
  const std::string p = indent(pad);
  const std::string b = axisVar(inner1_);
  // Short, unrolled and all in vectors: every step's loads first, then the
  // stores, so no load waits behind another's stores (ptxas otherwise
  // issued one load, its eight stores, then the rest).
  const int64_t earlyWords = stagedEarlyWords(v1);
  const bool early = earlyWords >= 0 && earlyWords <= kPrefetchWords;
  std::string code;
  if (early) {
    code += p + "// Phase 1's loads of this thread's " + str(tileSteps(v1)) + " step(s).\n";
    for (const StagedInput& s : staged_) {
      code += p + "fl::Array<" + std::string(elementType(s.tv->dtype())) + ", " + str(v1) + "> " +
              s.array + "_early[" + str(tileSteps(v1)) + "];\n";
    }
    code += tileLoop(v1, pad);
    code += tilePosition(true, v1, pad + 2);
    code += indent(pad + 2) + "const index_t " + laneVar() + " = " + axisVar(inner2_) + ";\n";
    code += indent(pad + 2) + "(void)" + laneVar() + ";\n";
    for (const StagedInput& s : staged_) {
      code += indent(pad + 2) + s.array + "_early[step] = fl::load_vector<" + str(v1) + ">(" +
              interface_.parameterName(s.tv, false) + ".data + (" +
              interface_.offset(s.tv, s.index) + "));\n";
    }
    code += p + "}\n";
  }
  code += afterLoads;
  code += p + "// Phase 1: group-1 inputs into shared memory along B, " + str(v1) +
          " element(s) per access.\n";
  code += tileLoop(v1, pad);
  code += tilePosition(true, v1, pad + 2);
  code += indent(pad + 2) + "const index_t " + laneVar() + " = " + axisVar(inner2_) + ";\n";
  code += indent(pad + 2) + "(void)" + laneVar() + ";\n";
  for (const StagedInput& s : staged_) {
    const std::string& param = interface_.parameterName(s.tv, false);
    const std::string element(elementType(s.tv->dtype()));
    if (v1 > 1 && vectorAlong(s.index, innermostLogical(s.tv), b)) {
      if (collectUses_) vectorUses_.push_back({s.tv, false, innermostLogical(s.tv), v1});
      code += indent(pad + 2) + "{\n" + indent(pad + 4) + "const fl::Array<" + element + ", " +
              str(v1) + "> v = " +
              (early ? s.array + "_early[step]"
                     : "fl::load_vector<" + str(v1) + ">(" + param + ".data + (" +
                           interface_.offset(s.tv, s.index) + "))") +
              ";\n";
      code += indent(pad + 4) + "#pragma unroll\n" + indent(pad + 4) + "for (int j = 0; j < " +
              str(v1) + "; ++j) " + s.array + "[la][lb + j] = v[j];\n" + indent(pad + 2) + "}\n";
    } else {
      code += indent(pad + 2) + "for (int j = 0; j < " + str(v1) + "; ++j) {\n";
      code += indent(pad + 4) + "const index_t b_first = " + b + ";\n";
      code +=
          indent(pad + 4) + "{\n" + indent(pad + 6) + "const index_t " + b + " = b_first + j;\n";
      code += indent(pad + 6) + "if (" + b + " < ref_e" + str(inner1_) + ") " + s.array +
              "[la][lb + j] = " + param + ".data[" + interface_.offset(s.tv, s.index) + "];\n";
      code += indent(pad + 4) + "}\n" + indent(pad + 2) + "}\n";
    }
  }
  code += p + "}\n" + p + "__syncthreads();\n";
  return code;
}

std::string TransposeKernel::phase3(int64_t v1, int pad) {
  if (stagedOutputs_.empty()) return {};
  const std::string p = indent(pad);
  std::string code = p + "__syncthreads();\n" + p +
                     "// Phase 3: group-1 outputs from shared memory along B, " + str(v1) +
                     " element(s) per access.\n";
  code += tileLoop(v1, pad);
  code += tilePosition(true, v1, pad + 2);
  const std::string b = axisVar(inner1_);
  for (const TensorView* out : stagedOutputs_) {
    const std::string& param = interface_.parameterName(out, true);
    const std::string element(elementType(out->dtype()));
    const OutputAccess access = walk_.outputAccess(out, refIndex(false), interface_);
    if (v1 > 1 && !mentionsIdentifier(access.predicate, b) &&
        vectorAlong(access.index, innermostLogical(out), b)) {
      if (collectUses_) vectorUses_.push_back({out, true, innermostLogical(out), v1});
      code += indent(pad + 2) + "{\n" + indent(pad + 4) + "fl::Array<" + element + ", " + str(v1) +
              "> v;\n";
      code += indent(pad + 4) + "#pragma unroll\n" + indent(pad + 4) + "for (int j = 0; j < " +
              str(v1) + "; ++j) v[j] = smem_" + param + "[la][lb + j];\n";
      std::string store = "fl::store_vector<" + str(v1) + ">(" + param + ".data + (" +
                          interface_.offset(out, access.index, true) + "), v);";
      if (!access.predicate.empty()) store = "if (" + access.predicate + ") " + store;
      code += indent(pad + 4) + store + "\n" + indent(pad + 2) + "}\n";
    } else {
      code += indent(pad + 2) + "for (int j = 0; j < " + str(v1) + "; ++j) {\n";
      code += indent(pad + 4) + "const index_t b_first = " + b + ";\n";
      code +=
          indent(pad + 4) + "{\n" + indent(pad + 6) + "const index_t " + b + " = b_first + j;\n";
      std::string condition = b + " < ref_e" + str(inner1_);
      if (!access.predicate.empty()) condition += " && " + access.predicate;
      code += indent(pad + 6) + "if (" + condition + ") " + param + ".data[" +
              interface_.offset(out, access.index, true) + "] = smem_" + param + "[la][lb + j];\n";
      code += indent(pad + 4) + "}\n" + indent(pad + 2) + "}\n";
    }
  }
  code += p + "}\n";
  return code;
}

std::string TransposeKernel::body(int64_t v1, int64_t v2, int pad) {
  // Phase 2 first: it decides which inputs are staged, at which index.
  staged_.clear();
  const std::string second = phase2(v1, v2, pad);
  return phase1(v1, pad, prefetch_) + second + phase3(v1, pad);
}

std::string TransposeKernel::vectorCondition() const {
  std::string condition = "ref_e" + str(inner1_) + " % " + str(params_.vectorizationFactor1) +
                          " == 0 && ref_e" + str(inner2_) + " % " +
                          str(params_.vectorizationFactor2) + " == 0";
  for (const VectorUse& use : vectorUses_) {
    const std::string& param = interface_.parameterName(use.tv, use.output);
    const int64_t bytes = ir::sizeInBytes(use.tv->dtype()) * use.width;
    condition += "\n      && " + param + "_s" + str(use.axis) + " == 1 && (uint64_t)" + param +
                 ".data % " + str(bytes) + " == 0";
    for (int64_t a = 0; a < use.tv->rank(); ++a) {
      if (a != use.axis)
        condition += " && " + param + "_s" + str(a) + " % " + str(use.width) + " == 0";
    }
  }
  return condition;
}

GeneratedKernel TransposeKernel::build() {
  findGroups();
  const int64_t v1 = params_.vectorizationFactor1;
  const int64_t v2 = params_.vectorizationFactor2;
  for (const auto& [value, what] :
       {std::pair{params_.tileSize1, "tile_size1"}, std::pair{params_.tileSize2, "tile_size2"}}) {
    FL_CHECK(value >= 1 && value <= 128 && (value & (value - 1)) == 0, "code generation: ", what,
             " ", value, " is not a power of two from 1 to 128");
  }
  FL_CHECK(params_.tileSize1 % v1 == 0 && params_.tileSize2 % v2 == 0,
           "code generation: the vectorization factors ", v1, " and ", v2,
           " must divide the tile sizes ", params_.tileSize1, " and ", params_.tileSize2);
  FL_CHECK(params_.blockDim >= 1 && params_.blockDim <= 1024, "code generation: block_dim ",
           params_.blockDim, " is not a CUDA block size");

  GeneratedKernel kernel;
  kernel.name = name_;
  kernel.parameters = interface_.parameters();
  kernel.int64Indexing = interface_.int64Indexing();
  const std::vector<int64_t>& extents = walk_.extents();
  int64_t tiles = 1;
  for (int64_t k = 0; k < rank_; ++k) {
    FL_CHECK(extents[k] >= 0, "code generation: the extents of ", walk_.reference()->name(),
             " are not bound");
    if (k == inner1_) {
      tiles *= (extents[k] + params_.tileSize1 - 1) / params_.tileSize1;
    } else if (k == inner2_) {
      tiles *= (extents[k] + params_.tileSize2 - 1) / params_.tileSize2;
    } else {
      tiles *= extents[k];
    }
  }
  kernel.launch.block = {params_.blockDim, 1, 1};
  kernel.launch.grid = {std::clamp<int64_t>(tiles, 1, kMaxGridX), 1, 1};

  const bool vectorized = v1 > 1 || v2 > 1;
  collectUses_ = true;
  const std::string vectorBody = body(v1, v2, vectorized ? 6 : 4);
  collectUses_ = false;
  const std::string condition = vectorized ? vectorCondition() : std::string();
  const std::vector<StagedInput> stagedVector = staged_;
  const std::string elementBody = vectorized ? body(1, 1, 6) : std::string();

  std::string src = kernelComment(name_, "transpose", segment_, params_.toString());
  src += "//\n// Reference " + walk_.reference()->name() + ": A = a" + str(inner2_) +
         " (its innermost axis), B = a" + str(inner1_) + " (innermost axis of group 1:";
  for (const TensorView* tv : group1_) src += " " + tv->name();
  src += ")\n";
  for (const std::string& note : interface_.specialized()) src += "// specialized: " + note + "\n";
  src += "#include \"fuserlab_device.cuh\"\n\n";
  src += interface_.signature(name_) + " {\n";
  src += kKernelEntry;
  src += interface_.prologue(2);
  src += "  constexpr int kTile1 = " + str(params_.tileSize1) + ";  // along B\n";
  src += "  constexpr int kTile2 = " + str(params_.tileSize2) + ";  // along A\n";
  // Both bodies stage the same inputs (phase 2 asks for them the same way).
  std::vector<StagedInput> allStaged = stagedVector;
  allStaged.insert(allStaged.end(), staged_.begin(), staged_.end());
  std::vector<std::string> declared;
  for (const StagedInput& s : allStaged) {
    if (std::find(declared.begin(), declared.end(), s.array) != declared.end()) continue;
    declared.push_back(s.array);
    src += "  __shared__ " + std::string(elementType(s.tv->dtype())) + " " + s.array +
           "[kTile2][kTile1 + 1];\n";
  }
  for (const TensorView* out : stagedOutputs_) {
    src += "  __shared__ " + std::string(elementType(out->dtype())) + " smem_" +
           interface_.parameterName(out, true) + "[kTile2][kTile1 + 1];\n";
  }
  const std::string& ref = interface_.parameterName(walk_.reference(), true);
  // The tile loop divides by the tile counts and by every batch axis's
  // extent but the outermost's: those extents are constants when known (a
  // division by a constant is a multiply and a shift; the kernel is
  // generated for one layout, its launch and comment name the sizes).
  int64_t outermostBatch = -1;
  for (int64_t k = 0; k < rank_; ++k) {
    if (k != inner1_ && k != inner2_) {
      outermostBatch = k;
      break;
    }
  }
  for (int64_t k = 0; k < rank_; ++k) src += walk_.extentDeclaration(k, ref, k != outermostBatch);
  src += "  const index_t tiles_a = ref_e" + str(inner2_) + " / kTile2 + (ref_e" + str(inner2_) +
         " % kTile2 != 0);\n";
  src += "  const index_t tiles_b = ref_e" + str(inner1_) + " / kTile1 + (ref_e" + str(inner1_) +
         " % kTile1 != 0);\n";
  std::string batch;
  for (int64_t k = 0; k < rank_; ++k) {
    if (k != inner1_ && k != inner2_) batch += (batch.empty() ? "ref_e" : " * ref_e") + str(k);
  }
  src += "  const index_t tiles = tiles_a * tiles_b * " + (batch.empty() ? "(index_t)1" : batch) +
         ";\n";
  src += "  constexpr int threads = " + str(params_.blockDim) +
         ";  // the launch's block\n  const int tid = (int)threadIdx.x;\n";
  if (vectorized) src += "  const bool vector_ok = " + condition + ";\n";
  src += "  for (index_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {\n";
  src += "    index_t rest = tile;\n";
  src += "    const index_t tile_a0 = (rest % tiles_a) * kTile2; rest /= tiles_a;\n";
  src += "    const index_t tile_b0 = (rest % tiles_b) * kTile1; rest /= tiles_b;\n";
  for (int64_t k = rank_ - 1; k >= 0; --k) {
    if (k == inner1_ || k == inner2_) continue;
    src += "    const index_t " + axisVar(k) + " = rest % ref_e" + str(k) + "; rest /= ref_e" +
           str(k) + ";\n";
  }
  if (vectorized) {
    src += "    if (vector_ok) {\n" + vectorBody + "    } else {\n" + elementBody + "    }\n";
  } else {
    src += vectorBody;
  }
  src += "    __syncthreads();  // the tile's shared memory is reused\n  }\n}\n";
  kernel.source = std::move(src);
  kernel.waitsForPriorGrids = true;
  return kernel;
}

}  // namespace

GeneratedKernel emitTransposeKernel(const ir::Fusion& segment,
                                    const scheduler::TransposeParams& params,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    std::string_view name) {
  return TransposeKernel(segment, params, info, name).build();
}

}  // namespace fuserlab::codegen
