#include "core/codegen/reduction/reduction_emitter_common.h"

#include <algorithm>

#include "core/ir/error.h"

namespace fuserlab::codegen {
namespace {

using ir::DataType;
using ir::TensorView;
using Kind = ReductionStep::Kind;

bool contains(const std::vector<const TensorView*>& tvs, const TensorView* tv) {
  return std::find(tvs.begin(), tvs.end(), tv) != tvs.end();
}

// The count output of a Welford: the row length, whatever was accumulated.
bool isWelfordCount(const TensorView* tv) {
  const ir::Expr* def = tv->definition();
  return def != nullptr && def->type() == ir::ExprType::Welford && def->output(2) == tv;
}

std::string valueInit(DataType dtype) { return std::string(valueType(dtype)) + "()"; }

int64_t alignTo(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace

int64_t rowAllreduceEntries(int64_t bx, int64_t by) {
  if (bx == 1 || (bx <= 32 && 32 % bx == 0)) return 0;
  return bx % 32 == 0 ? by * (bx / 32) : bx * by;
}

int64_t colLanesPerWarp(int64_t cx, int64_t ry) {
  if (cx >= 32 || 32 % cx != 0 || (ry & (ry - 1)) != 0) return 1;
  return cx * ry < 32 ? ry : 32 / cx;
}

int64_t colAllreduceEntries(int64_t cx, int64_t ry, int64_t group) {
  const int64_t partials = ry / colLanesPerWarp(cx, ry);
  return partials > 1 ? partials * cx * group : 0;
}

bool isLogSumExp(const ReductionStep& step) {
  return step.kind == ReductionStep::Kind::Reduce &&
         step.expr->attrs().reductionOp == ir::ReductionOpType::LogSumExp;
}

int64_t accumulatorBytes(const ReductionStep& step) {
  const int64_t bytes = ir::sizeInBytes(step.compute);
  if (isLogSumExp(step)) return 2 * bytes;
  return step.kind == ReductionStep::Kind::Welford ? 2 * bytes + 8 : bytes;
}

std::string literal(int64_t value) {
  const std::string text = std::to_string(value);
  return value > 2147483647 || value < -2147483647 ? text + "ll" : text;
}

ReductionKernelBuilder::ReductionKernelBuilder(const ir::Fusion& segment,
                                               const scheduler::ReductionParams& params,
                                               const scheduler::SegmentRuntimeInfo& info,
                                               const scheduler::ReductionPattern& pattern,
                                               bool persistent,
                                               const std::vector<const TensorView*>& storage)
    : segment_(segment),
      params_(params),
      layout_(buildRowLayout(segment, pattern, info, params.vectorizationFactor,
                             /*allowShiftedRows=*/persistent && scheduler::shiftsRows(params))),
      plan_(planReduction(segment, pattern, layout_, persistent, storage)),
      interface_(segment, info, !params.useInt32Indexing),
      emitter_(segment,
               ExpressionHooks{
                   [this](const TensorView* tv, const ElementIndex&) { return leafValue(tv); },
                   [this](const TensorView* tv) { return isLeafNow(tv); },
                   [this](const ir::Scalar* s) { return interface_.symbolicScalar(s); },
                   /*uniformIndex=*/{}},
               /*indexed=*/true) {
  emitter_.allowApproximations();
}

ElementIndex ReductionKernelBuilder::indexFor(const TensorView* tv, const std::string& row,
                                              const std::string& element) const {
  ElementIndex index;
  const TensorCoordinates* coordinates = layout_.coordinatesOf(tv);
  const size_t rank = static_cast<size_t>(tv->rank());
  for (size_t k = 0; k < rank; ++k) {
    if (coordinates == nullptr) {
      index.push_back("0");
      continue;
    }
    const std::string r = indexExpression(coordinates->rowTerms[k], row);
    const std::string j = indexExpression(coordinates->elementTerms[k], element);
    index.push_back(r == "0" ? j : (j == "0" ? r : r + " + " + j));
  }
  return index;
}

void ReductionKernelBuilder::line(int indent, const std::string& text) {
  body_.append(static_cast<size_t>(indent), ' ');
  body_ += text;
  body_ += '\n';
}

std::string ReductionKernelBuilder::perRowArray(const TensorView* tv) const {
  const TensorRole& r = plan_.role(tv);
  return (r.provided && !segment_.isInput(tv) ? "res_" : "pr_") + tv->name();
}

std::string ReductionKernelBuilder::accumulator(const ReductionStep& step) const {
  return "acc_" + step.name + (step.kind == Kind::WelfordM2 ? "_m2" : "");
}

std::string ReductionKernelBuilder::gatherOwner(const GatherStep& gather) const {
  return "own_" + gather.output->name();
}

std::string ReductionKernelBuilder::gatherColumn(const GatherStep& gather) const {
  return "gcol_" + gather.output->name();
}

std::string ReductionKernelBuilder::welfordChunkName(const ReductionStep& step) const {
  return "wf_" + step.name;
}

std::string ReductionKernelBuilder::logSumExpChunkName(const ReductionStep& step) const {
  return "lsx_" + step.name;
}

std::string ReductionKernelBuilder::loadName(const TensorView* tv) const {
  return tv->name() + "_ld";
}

std::string ReductionKernelBuilder::storeName(const ReductionPlan::Output& out) const {
  return interface_.parameterName(out.tv, true) + "_st";
}

std::string ReductionKernelBuilder::storageName(const TensorView* tv) const {
  return "S_" + tv->name();
}

std::string ReductionKernelBuilder::elementOf(const TensorView* tv) const {
  return std::string(elementType(tv->dtype()));
}

std::string ReductionKernelBuilder::dataOf(const TensorView* tv, bool output) const {
  return interface_.parameterName(tv, output) + ".data";
}

std::string ReductionKernelBuilder::accumulatorType(const ReductionStep& step) const {
  const std::string type(valueType(step.compute));
  if (isLogSumExp(step)) return "fl::LogSumExp<" + type + ">";
  return step.kind == Kind::Welford ? "fl::Welford<" + type + ">" : type;
}

std::string ReductionKernelBuilder::identity(const ReductionStep& step) const {
  const std::string type(valueType(step.compute));
  switch (step.kind) {
    case Kind::Welford: return "fl::welford_identity<" + type + ">()";
    case Kind::WelfordMean:
    case Kind::WelfordM2: return type + "(0)";
    case Kind::Reduce: break;
  }
  switch (step.expr->attrs().reductionOp) {
    case ir::ReductionOpType::Sum: return type + "(0)";
    case ir::ReductionOpType::Prod: return type + "(1)";
    case ir::ReductionOpType::Max: return "fl::lowest_value<" + type + ">()";
    case ir::ReductionOpType::Min: return "fl::highest_value<" + type + ">()";
    case ir::ReductionOpType::LogSumExp: return "fl::lse_identity<" + type + ">()";
  }
  FL_ASSERT(false, "unknown reduction op");
}

std::string ReductionKernelBuilder::combineFunctor(const ReductionStep& step) const {
  const std::string type(valueType(step.compute));
  switch (step.kind) {
    case Kind::Welford: return "fl::red::WelfordOp<" + type + ">()";
    case Kind::WelfordMean:
    case Kind::WelfordM2: return "fl::SumOp<" + type + ">()";
    case Kind::Reduce: break;
  }
  switch (step.expr->attrs().reductionOp) {
    case ir::ReductionOpType::Sum: return "fl::SumOp<" + type + ">()";
    case ir::ReductionOpType::Prod: return "fl::ProdOp<" + type + ">()";
    case ir::ReductionOpType::Max: return "fl::MaxOp<" + type + ">()";
    case ir::ReductionOpType::Min: return "fl::MinOp<" + type + ">()";
    case ir::ReductionOpType::LogSumExp: return "fl::red::LogSumExpOp<" + type + ">()";
  }
  FL_ASSERT(false, "unknown reduction op");
}

std::string ReductionKernelBuilder::combine(const ReductionStep& step, const std::string& a,
                                            const std::string& b) const {
  const bool floating = step.compute != DataType::Int;
  switch (step.kind) {
    case Kind::Welford: return "fl::welford_combine(" + a + ", " + b + ")";
    case Kind::WelfordMean:
    case Kind::WelfordM2: return "(" + a + " + " + b + ")";
    case Kind::Reduce: break;
  }
  switch (step.expr->attrs().reductionOp) {
    case ir::ReductionOpType::Sum:
      return floating ? "(" + a + " + " + b + ")" : "fl::add(" + a + ", " + b + ")";
    case ir::ReductionOpType::Prod:
      return floating ? "(" + a + " * " + b + ")" : "fl::mul(" + a + ", " + b + ")";
    case ir::ReductionOpType::Max: return "fl::maximum(" + a + ", " + b + ")";
    case ir::ReductionOpType::Min: return "fl::minimum(" + a + ", " + b + ")";
    case ir::ReductionOpType::LogSumExp: return "fl::lse_combine(" + a + ", " + b + ")";
  }
  FL_ASSERT(false, "unknown reduction op");
}

void ReductionKernelBuilder::emitStepResults(const ReductionStep& step, int indent,
                                             const std::string& slot, const std::string& reduced) {
  const auto* out0 = step.expr->output(0)->as<TensorView>();
  auto set = [&](const TensorView* out, const std::string& value) {
    line(indent, perRowArray(out) + "[" + slot +
                     "] = " + convertValue(value, step.compute, out->dtype()) + ";");
  };
  switch (step.kind) {
    case Kind::Reduce:
      set(out0, isLogSumExp(step) ? "fl::lse_value(" + reduced + ")" : reduced);
      return;
    case Kind::Welford: {
      line(indent, "{");
      line(indent + 2, "const " + accumulatorType(step) + " w = " + reduced + ";");
      set(out0, "w.avg");
      indent += 2;
      set(step.expr->output(1)->as<TensorView>(), "w.m2");
      line(indent - 2, "}");
      return;
    }
    case Kind::WelfordMean:
      set(out0, "(" + reduced + " / " + std::string(valueType(step.compute)) + "(" +
                    std::to_string(layout_.rowLength) + "))");
      return;
    case Kind::WelfordM2: set(step.expr->output(1)->as<TensorView>(), reduced); return;
  }
}

void ReductionKernelBuilder::declareRowArrays(int indent, int slots) {
  const std::string n = "[" + std::to_string(slots) + "]";
  for (const TensorView* tv : plan_.tensors) {
    const TensorRole& r = plan_.role(tv);
    if (!r.perRow || isWelfordCount(tv)) continue;
    line(indent, std::string(valueType(tv->dtype())) + " " + perRowArray(tv) + n + ";");
  }
  // A row gather's value is set by the one thread that owns the element;
  // the others compute what depends on it from a zero and write nothing.
  // The row's column (gcol_) is computed once per row, where the index is
  // available: an int64 compare per element, or an ownership flag set per
  // element, took a cross-entropy kernel from 128 to over 200 registers.
  for (const GatherStep& gather : plan_.gathers) {
    const std::string owner = gatherOwner(gather);
    line(indent, "bool " + owner + n + ";");
    line(indent, "index_t " + gatherColumn(gather) + n + ";");
    line(indent, "#pragma unroll");
    line(indent, "for (int s = 0; s < " + std::to_string(slots) + "; ++s) {");
    line(indent + 2, owner + "[s] = false;");
    line(indent + 2,
         perRowArray(gather.output) + "[s] = " + valueInit(gather.output->dtype()) + ";");
    line(indent, "}");
  }
}

void ReductionKernelBuilder::declareAccumulators(int indent, int slots) {
  for (const ReductionStep& step : plan_.steps) {
    const std::string acc = accumulator(step);
    line(indent, accumulatorType(step) + " " + acc + "[" + std::to_string(slots) + "];");
    line(indent, "#pragma unroll");
    line(indent, "for (int s = 0; s < " + std::to_string(slots) + "; ++s) " + acc +
                     "[s] = " + identity(step) + ";");
  }
}

bool ReductionKernelBuilder::rowStageHasWork(int stage) const {
  if (stage == 0 && !plan_.perRowInputs.empty()) return true;
  for (const TensorView* tv : plan_.perRowComputed) {
    if (plan_.role(tv).available == stage) return true;
  }
  for (const ReductionPlan::Output& out : plan_.outputs) {
    if (!out.perElement && out.available == stage) return true;
  }
  for (const GatherStep& gather : plan_.gathers) {
    if (gather.phase == stage) return true;
  }
  return false;
}

void ReductionKernelBuilder::emitRowStage(int stage, int indent, const SlotContext& slot) {
  mode_ = Mode::RowStage;
  stage_ = stage;
  slotContext_ = &slot;
  emitter_.setIndent(indent);
  emitter_.pushScope();
  const std::string at = "[" + slot.slot + "]";
  if (stage == 0) {
    for (const TensorView* tv : plan_.perRowInputs) {
      std::string value;
      if (auto byValue = interface_.cpuScalarValue(tv)) {
        value = *byValue;
      } else {
        std::string offset = "0";
        if (tv->rank() > 0) {
          offset = indexExpression(layout_.access(tv).rowTerms, slot.rowIndex);
        }
        value = "fl::load_value(" + dataOf(tv, false) + "[" + offset + "])";
      }
      line(indent, perRowArray(tv) + at + " = " + slot.valid + " ? " + value + " : " +
                       valueInit(tv->dtype()) + ";");
    }
  }
  for (const TensorView* tv : plan_.perRowComputed) {
    if (plan_.role(tv).available != stage) continue;
    const std::string value = emitter_.value(tv, indexFor(tv, slot.rowIndex, "0"));
    append(emitter_.takeCode());
    line(indent, perRowArray(tv) + at + " = " + value + ";");
  }
  // The column each row gather of the next phase takes. An index outside
  // the row is clamped to it, as the other kernels' gathers do (the CPU
  // reference refuses it).
  for (const GatherStep& gather : plan_.gathers) {
    if (gather.phase != stage) continue;
    line(indent, gatherColumn(gather) + at + " = (index_t)fl::clamp((int64_t)" +
                     perRowArray(gather.index) + at + ", (int64_t)0, (int64_t)" +
                     literal(layout_.rowLength - 1) + ");");
  }
  for (const ReductionPlan::Output& out : plan_.outputs) {
    if (out.perElement || out.available != stage) continue;
    const std::string value = emitter_.storedValue(out.tv, indexFor(out.tv, slot.rowIndex, "0"));
    append(emitter_.takeCode());
    const TensorAccess& access = layout_.outputAccess(out.tv);
    const int gather = plan_.role(out.tv).gather;
    std::string condition =
        (gather >= 0 ? gatherOwner(plan_.gathers[static_cast<size_t>(gather)]) + at : slot.leader) +
        " && " + slot.valid;
    const std::string guard = guardExpression(access.rowGuards, slot.rowIndex);
    if (!guard.empty()) condition += " && " + guard;
    line(indent, "if (" + condition + ") " + dataOf(out.tv, true) + "[" +
                     indexExpression(access.rowTerms, slot.rowIndex) + "] = fl::to_element<" +
                     elementOf(out.tv) + ">(" + value + ");");
  }
  emitter_.popScope();
  slotContext_ = nullptr;
}

std::vector<const TensorView*> ReductionKernelBuilder::globalLoads(int phase) const {
  std::vector<const TensorView*> stack = plan_.phaseTargets(phase);
  std::vector<const TensorView*> seen;
  std::vector<const TensorView*> loads;
  while (!stack.empty()) {
    const TensorView* tv = stack.back();
    stack.pop_back();
    if (contains(seen, tv)) continue;
    seen.push_back(tv);
    if (plan_.isLeafInPhase(tv, phase)) {
      const TensorRole& r = plan_.role(tv);
      if (segment_.isInput(tv) && !r.perRow && !(r.stored && r.available < phase)) {
        loads.push_back(tv);
      }
      continue;
    }
    for (const ir::Val* val : tv->definition()->inputs()) {
      if (const auto* in = val->as<TensorView>()) stack.push_back(in);
    }
  }
  std::vector<const TensorView*> ordered;
  for (const TensorView* tv : plan_.tensors) {
    if (contains(loads, tv)) ordered.push_back(tv);
  }
  return ordered;
}

void ReductionKernelBuilder::declareChunkLoads(int phase, int indent,
                                               const std::string& declSuffix) {
  for (const TensorView* tv : globalLoads(phase)) {
    line(indent, "fl::Array<" + elementOf(tv) + ", " + std::to_string(laneWidth()) + "> " +
                     loadName(tv) + declSuffix + ";");
  }
}

std::string ReductionKernelBuilder::offsetAt(const TensorAccess& access, const std::string& row,
                                             const std::string& element) const {
  std::string r = indexExpression(access.rowTerms, row);
  std::string j = indexExpression(access.elementTerms, element);
  if (r == "0") return j;
  if (j == "0") return r;
  return r + " + " + j;
}

void ReductionKernelBuilder::emitChunkLoads(int indent, const LaneContext& ctx) {
  const std::string v = std::to_string(laneWidth());
  const bool inner = layout_.inner;
  auto rowOf = [&](const std::string& l) {
    return inner ? ctx.rowChunk : "(" + ctx.rowChunk + " + " + l + ")";
  };
  auto elementOfLane = [&](const std::string& l) {
    return inner ? "(" + ctx.elementChunk + " + " + l + ")" : ctx.elementChunk;
  };
  for (const TensorView* tv : globalLoads(ctx.phase)) {
    const TensorAccess& access = layout_.access(tv);
    const std::string name = loadName(tv) + ctx.loadSuffix;
    const std::string data = dataOf(tv, false);
    const std::string e = elementOf(tv);
    line(indent, name + " = fl::Array<" + e + ", " + v + ">{};");
    // An element pass reads one element: no vector, whatever the chunks do.
    const ChunkAccess kind = elementPass_ ? ChunkAccess::Elements : access.access;
    switch (kind) {
      case ChunkAccess::Vector:
        line(indent, "if (" + ctx.valid + ") " + name + " = fl::load_vector<" + v + ">(" + data +
                         " + " + offsetAt(access, ctx.rowChunk, ctx.elementChunk) + ");");
        break;
      case ChunkAccess::Invariant:
        line(indent, "if (" + ctx.valid + ") {");
        line(indent + 2, "const " + e + " x = " + data + "[" +
                             offsetAt(access, ctx.rowChunk, ctx.elementChunk) + "];");
        line(indent + 2, "#pragma unroll");
        line(indent + 2, "for (int l = 0; l < " + v + "; ++l) " + name + "[l] = x;");
        line(indent, "}");
        break;
      case ChunkAccess::Elements:
        line(indent, "if (" + ctx.valid + ") {");
        line(indent + 2, "#pragma unroll");
        line(indent + 2, "for (int l = 0; l < " + v + "; ++l) " + name + "[l] = " + data + "[" +
                             offsetAt(access, rowOf("l"), elementOfLane("l")) + "];");
        line(indent, "}");
        break;
    }
    const TensorRole& r = plan_.role(tv);
    if (r.stored && r.available == ctx.phase) {
      if (params_.persistentStorage == scheduler::PersistentStorage::Registers) {
        line(indent, storageName(tv) + ctx.storageChunk +
                         (elementPass_ ? "[0] = " + name + "[0];" : " = " + name + ";"));
      } else {
        FL_ASSERT(!elementPass_, "element passes keep their elements in registers");
        if (!ctx.storageLaneStride.empty()) {
          line(indent, "#pragma unroll");
          line(indent, "for (int l = 0; l < " + v + "; ++l) " + storageName(tv) + "[" +
                           ctx.storageChunk + " + l * " + ctx.storageLaneStride + "] = " + name +
                           "[l];");
        } else {
          line(indent, "fl::store_vector<" + v + ">(" + storageName(tv) + " + " + ctx.storageChunk +
                           ", " + name + ");");
        }
      }
    }
  }
}

bool ReductionKernelBuilder::foldsLogSumExpChunks() const {
  return layout_.inner && laneWidth() > 1;
}

void ReductionKernelBuilder::declareChunkValues(int phase, int indent) {
  if (!foldsLogSumExpChunks()) return;
  for (const ReductionStep* step : plan_.stepsIn(phase)) {
    if (!isLogSumExp(*step)) continue;
    line(indent, std::string(valueType(step->compute)) + " " + logSumExpChunkName(*step) + "[" +
                     std::to_string(laneWidth()) + "];");
  }
}

void ReductionKernelBuilder::foldChunkValues(int indent, const LaneContext& ctx) {
  if (!foldsLogSumExpChunks()) return;
  for (const ReductionStep* step : plan_.stepsIn(ctx.phase)) {
    if (!isLogSumExp(*step)) continue;
    line(indent, "if (" + ctx.valid + ") fl::lse_fold(" + accumulator(*step) + "[" + ctx.slot +
                     "], " + logSumExpChunkName(*step) + ");");
  }
}

void ReductionKernelBuilder::declareOutputLanes(int phase, int indent) {
  for (const ReductionPlan::Output& out : plan_.outputs) {
    if (!out.perElement || out.available != phase) continue;
    line(indent, "fl::Array<" + elementOf(out.tv) + ", " + std::to_string(laneWidth()) + "> " +
                     storeName(out) + ";");
  }
}

bool ReductionKernelBuilder::phaseWritesOutputs(int phase) const {
  for (const ReductionPlan::Output& out : plan_.outputs) {
    if (out.perElement && out.available == phase) return true;
  }
  return false;
}

std::string ReductionKernelBuilder::storageLane(const TensorView* tv,
                                                const LaneContext& ctx) const {
  if (params_.persistentStorage == scheduler::PersistentStorage::Registers) {
    return storageName(tv) + ctx.storageChunk + "[" + ctx.lane + "]";
  }
  const std::string lane =
      ctx.storageLaneStride.empty() ? ctx.lane : ctx.lane + " * " + ctx.storageLaneStride;
  return storageName(tv) + "[" + ctx.storageChunk + " + " + lane + "]";
}

void ReductionKernelBuilder::emitElement(int indent, const LaneContext& ctx) {
  mode_ = Mode::Element;
  lane_ = &ctx;
  emitter_.setIndent(indent);
  emitter_.pushScope();
  const int phase = ctx.phase;
  const std::vector<const TensorView*> targets = plan_.phaseTargets(phase);
  // A target that the phase only stores as an output is computed as what its
  // store converts (storedValue); one a step or a stored buffer reads too
  // keeps its value.
  auto onlyAnOutput = [&](const TensorView* tv) {
    for (const ReductionPlan::Output& out : plan_.outputs) {
      if (out.tv == tv && !out.perElement) return false;
    }
    for (const ReductionStep* step : plan_.stepsIn(phase)) {
      if (step->input == tv) return false;
    }
    for (const GatherStep* gather : plan_.gathersIn(phase)) {
      if (gather->source == tv) return false;
    }
    return std::find(plan_.stored.begin(), plan_.stored.end(), tv) == plan_.stored.end();
  };
  std::vector<std::string> values;
  for (const TensorView* tv : targets) {
    const ElementIndex index = indexFor(tv, ctx.rowLane, ctx.elementLane);
    values.push_back(onlyAnOutput(tv) ? emitter_.storedValue(tv, index)
                                      : emitter_.value(tv, index));
  }
  append(emitter_.takeCode());
  auto valueOf = [&](const TensorView* tv) {
    const auto it = std::find(targets.begin(), targets.end(), tv);
    FL_ASSERT(it != targets.end(), tv->name(), " is not a target of phase ", phase);
    return values[static_cast<size_t>(it - targets.begin())];
  };
  for (const TensorView* tv : plan_.stored) {
    const TensorRole& r = plan_.role(tv);
    if (r.provided || r.available != phase) continue;
    line(indent,
         storageLane(tv, ctx) + " = fl::to_element<" + elementOf(tv) + ">(" + valueOf(tv) + ");");
  }
  for (const ReductionStep* step : plan_.stepsIn(phase)) {
    const std::string x = convertValue(valueOf(step->input), step->input->dtype(), step->compute);
    const std::string acc = accumulator(*step) + "[" + ctx.slot + "]";
    switch (step->kind) {
      case Kind::Reduce:
      case Kind::WelfordMean:
        if (isLogSumExp(*step)) {
          if (foldsLogSumExpChunks()) {
            line(indent, logSumExpChunkName(*step) + "[" + ctx.lane + "] = " + x + ";");
          } else {
            line(indent, "if (" + ctx.valid + ") fl::lse_update(" + acc + ", " + x + ");");
          }
          break;
        }
        line(indent, "if (" + ctx.valid + ") " + acc + " = " + combine(*step, acc, x) + ";");
        break;
      case Kind::Welford:
        if (!ctx.welfordChunk.empty()) {
          line(indent, welfordChunkName(*step) + ctx.welfordChunk + " = " + x + ";");
          break;
        }
        line(indent, "if (" + ctx.valid + ") fl::welford_update(" + acc + ", " + x + ");");
        break;
      case Kind::WelfordM2: {
        const auto* avg = step->expr->output(0)->as<TensorView>();
        const std::string type(valueType(step->compute));
        line(indent, "if (" + ctx.valid + ") {");
        line(indent + 2, "const " + type + " d = " + x + " - " +
                             convertValue(perRowArray(avg) + "[" + ctx.slot + "]", avg->dtype(),
                                          step->compute) +
                             ";");
        line(indent + 2, acc + " = " + acc + " + d * d;");
        line(indent, "}");
        break;
      }
    }
  }
  for (const ReductionStep* step : plan_.columnStepsIn(phase)) {
    FL_ASSERT(!ctx.columnSlot.empty(), "column sum ", step->name,
              " in a pass without column accumulators");
    const std::string x = convertValue(valueOf(step->input), step->input->dtype(), step->compute);
    const std::string acc = columnAccumulator(*step) + ctx.columnSlot;
    line(indent, "if (" + ctx.valid + ") " + acc + " += " + x + ";");
  }
  for (const GatherStep* gather : plan_.gathersIn(phase)) {
    emitGatherMatch(*gather, indent, ctx, valueOf(gather->source));
  }
  for (const ReductionPlan::Output& out : plan_.outputs) {
    if (!out.perElement || out.available != phase) continue;
    line(indent, storeName(out) + "[" + ctx.lane + "] = fl::to_element<" + elementOf(out.tv) +
                     ">(" + valueOf(out.tv) + ");");
  }
  emitter_.popScope();
  lane_ = nullptr;
}

std::string ReductionKernelBuilder::gatherCoordinate(const GatherStep& gather,
                                                     const std::string& element) const {
  const TensorCoordinates* coordinates = layout_.coordinatesOf(gather.source);
  const auto dim = static_cast<size_t>(gather.dim);
  // The source's coordinate on the gathered axis is the element index
  // within the row (the scheduler checked that the axis walks along the
  // reduced one element for element).
  FL_CHECK(coordinates != nullptr && coordinates->rowTerms.at(dim).empty(),
           "code generation: ", gather.expr->toString(),
           ": the gathered axis does not follow the reduced axis");
  return "(index_t)" + indexExpression(coordinates->elementTerms.at(dim), element);
}

void ReductionKernelBuilder::emitGatherMatch(const GatherStep& gather, int indent,
                                             const LaneContext& ctx, const std::string& value) {
  const std::string kept = perRowArray(gather.output) + "[" + ctx.slot + "]";
  line(indent, kept + " = " + ctx.lane + " == " + gatherLane(gather) + " ? " +
                   convertValue(value, gather.source->dtype(), gather.output->dtype()) + " : " +
                   kept + ";");
}

std::string ReductionKernelBuilder::gatherLane(const GatherStep& gather) const {
  return "glane_" + gather.output->name();
}

void ReductionKernelBuilder::emitGatherOwners(int indent, const LaneContext& ctx) {
  // The lane of the chunk that holds the row's gathered column, -1 if none:
  // one compare a lane against a constant (a column index a lane took three
  // instructions of the ~12 a cross-entropy element costs).
  for (const GatherStep* gather : plan_.gathersIn(ctx.phase)) {
    const std::string at = "[" + ctx.slot + "]";
    const std::string owner = gatherOwner(*gather) + at;
    const std::string offset = "(" + gatherColumn(*gather) + at + " - " +
                               gatherCoordinate(*gather, ctx.elementChunk) + ")";
    line(indent, "const int " + gatherLane(*gather) + " = " + ctx.valid + " && " + offset +
                     " >= 0 && " + offset + " < " + std::to_string(laneWidth()) + " ? (int)" +
                     offset + " : -1;");
    line(indent, owner + " = " + owner + " || " + gatherLane(*gather) + " >= 0;");
  }
}

void ReductionKernelBuilder::emitOutputStores(int indent, const LaneContext& ctx) {
  const std::string v = std::to_string(laneWidth());
  const bool inner = layout_.inner;
  for (const ReductionPlan::Output& out : plan_.outputs) {
    if (!out.perElement || out.available != ctx.phase) continue;
    const TensorAccess& access = layout_.outputAccess(out.tv);
    const std::string data = dataOf(out.tv, true);
    const std::string name = storeName(out);
    if (access.access == ChunkAccess::Vector && !elementPass_) {
      std::string condition = ctx.valid;
      for (const std::string& g : {guardExpression(access.rowGuards, ctx.rowChunk),
                                   guardExpression(access.elementGuards, ctx.elementChunk)}) {
        if (!g.empty()) condition += " && " + g;
      }
      line(indent, "if (" + condition + ") fl::store_vector<" + v + ">(" + data + " + " +
                       offsetAt(access, ctx.rowChunk, ctx.elementChunk) + ", " + name + ");");
      continue;
    }
    const std::string row = inner ? ctx.rowChunk : "(" + ctx.rowChunk + " + l)";
    const std::string element = inner ? "(" + ctx.elementChunk + " + l)" : ctx.elementChunk;
    std::string guard;
    for (const std::string& g :
         {guardExpression(access.rowGuards, row), guardExpression(access.elementGuards, element)}) {
      if (!g.empty()) guard += guard.empty() ? g : " && " + g;
    }
    line(indent, "if (" + ctx.valid + ") {");
    line(indent + 2, "#pragma unroll");
    line(indent + 2, "for (int l = 0; l < " + v + "; ++l) " +
                         (guard.empty() ? "" : "if (" + guard + ") ") + data + "[" +
                         offsetAt(access, row, element) + "] = " + name + "[l];");
    line(indent, "}");
  }
}

int64_t ReductionKernelBuilder::declareStorage(int indent, int64_t batch, int64_t offsetBytes,
                                               int64_t elementsPerBlock,
                                               const std::string& rowBase) {
  int64_t bytes = 0;
  const std::string v = std::to_string(vectorize());
  for (const TensorView* tv : plan_.stored) {
    const std::string e = elementOf(tv);
    if (params_.persistentStorage == scheduler::PersistentStorage::Registers) {
      line(indent, "fl::Array<" + e + ", " + v + "> " + storageName(tv) + "[" +
                       std::to_string(batch) + "];");
      continue;
    }
    const int64_t at = alignTo(offsetBytes + bytes, 16);
    line(indent, e + "* " + storageName(tv) + " = reinterpret_cast<" + e + "*>(fl_smem + " +
                     std::to_string(at) + ")" + (rowBase.empty() ? "" : " + " + rowBase) + ";");
    bytes = at - offsetBytes + elementsPerBlock * ir::sizeInBytes(tv->dtype());
  }
  return alignTo(bytes, 16);
}

std::string ReductionKernelBuilder::leafValue(const TensorView* tv) {
  if (isWelfordCount(tv)) {
    return "(int64_t)" + std::to_string(layout_.rowLength);
  }
  const TensorRole& r = plan_.role(tv);
  if (mode_ == Mode::Column) {
    for (const ReductionStep& step : plan_.columnSteps) {
      if (step.expr->output(0) == tv) return columnResult(step);
    }
    FL_ASSERT(false, tv->name(), " is read after the rows but is no column sum");
  }
  if (mode_ == Mode::RowStage) {
    FL_ASSERT(r.perRow, tv->name(), " is read in a row stage but varies along the row");
    return perRowArray(tv) + "[" + slotContext_->slot + "]";
  }
  FL_ASSERT(lane_ != nullptr, "no element context");
  if (r.perRow) return perRowArray(tv) + "[" + lane_->slot + "]";
  if (r.stored && r.available < lane_->phase) {
    // Register storage keeps whole chunks (fl::Array), read as loaded
    // chunks are; shared-memory storage is a flat array of elements.
    if (params_.persistentStorage == scheduler::PersistentStorage::Registers) {
      return "fl::load_lane(" + storageName(tv) + lane_->storageChunk + ", " + lane_->lane + ")";
    }
    return "fl::load_value(" + storageLane(tv, *lane_) + ")";
  }
  FL_ASSERT(segment_.isInput(tv), tv->name(), " is a leaf but no input");
  return "fl::load_lane(" + loadName(tv) + lane_->loadSuffix + ", " + lane_->lane + ")";
}

bool ReductionKernelBuilder::isLeafNow(const TensorView* tv) const {
  const TensorRole& r = plan_.role(tv);
  if (mode_ == Mode::Column) {
    return std::any_of(plan_.columnSteps.begin(), plan_.columnSteps.end(),
                       [&](const ReductionStep& step) { return step.expr->output(0) == tv; });
  }
  if (mode_ == Mode::RowStage) {
    return r.provided || (r.perRow && r.available < stage_);
  }
  return plan_.isLeafInPhase(tv, lane_->phase);
}

GeneratedKernel ReductionKernelBuilder::finish(std::string_view name, std::string_view scheduler,
                                               const LaunchConfig& launch, int64_t workspaceBytes,
                                               bool usesWorkspace, int64_t minBlocksPerSm) const {
  GeneratedKernel kernel;
  kernel.name = std::string(name);
  kernel.launch = launch;
  kernel.parameters = interface_.parameters();
  kernel.int64Indexing = !params_.useInt32Indexing;
  kernel.workspaceBytes = workspaceBytes;
  if (params_.registerCap > 0) {
    kernel.options.push_back("--maxrregcount=" + std::to_string(params_.registerCap));
  }
  const int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  std::string signature = interface_.signature(name, usesWorkspace);
  const std::string global = "__global__ void ";
  const size_t at = signature.find(global);
  FL_ASSERT(at != std::string::npos, "unexpected kernel signature");
  std::string attributes = "__launch_bounds__(" + std::to_string(threads) +
                           (minBlocksPerSm > 0 ? ", " + std::to_string(minBlocksPerSm) : "") + ") ";
  if (launch.cluster != std::array<int64_t, 3>{1, 1, 1}) {
    attributes += "__cluster_dims__(" + std::to_string(launch.cluster[0]) + ", " +
                  std::to_string(launch.cluster[1]) + ", " + std::to_string(launch.cluster[2]) +
                  ") ";
  }
  signature.insert(at + global.size(), attributes);
  std::string source = kernelComment(name, scheduler, segment_, params_.toString());
  source += "// Specialized to these sizes: " + std::to_string(layout_.rows) + " rows of " +
            std::to_string(layout_.rowLength) + " elements (the reduced tensor " +
            plan_.steps.front().input->name() + " as rows x row length).\n";
  for (const std::string& note : interface_.specialized()) {
    source += "// Specialized: " + note + "\n";
  }
  source += "#include \"fuserlab_device.cuh\"\n\n";
  if (std::any_of(plan_.steps.begin(), plan_.steps.end(), isLogSumExp)) {
    source += logSumExpDeviceHelpers();
  }
  source += reductionDeviceHelpers();
  source += "\n" + signature + " {\n" + kKernelEntry + body_ + "}\n";
  kernel.source = std::move(source);
  kernel.waitsForPriorGrids = true;
  return kernel;
}

}  // namespace fuserlab::codegen
