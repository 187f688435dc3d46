#include "core/compiler/fusion_compiler.h"

#include <chrono>
#include <set>

#include "core/compiler/input_description.h"
#include "core/compiler/shard_inputs.h"
#include "core/ir/evaluator.h"
#include "core/ir/printer.h"
#include "core/ir/size_limits.h"
#include "core/ir/size_relations.h"
#include "core/passes/pipeline.h"
#include "core/passes/refine_reshaped_reductions.h"
#include "core/segmenter/segmenter.h"

namespace fuserlab::runtime {
namespace {

// Expr::toString spans two lines ("out\n   = op(...)"); the report wants one.
std::string oneLine(const ir::Expr& expr) {
  std::string text = expr.toString();
  const std::string breakText = "\n   = ";
  if (auto at = text.find(breakText); at != std::string::npos) {
    text.replace(at, breakText.size(), " = ");
  }
  return text;
}

std::vector<std::string> names(const std::vector<ir::Val*>& vals) {
  std::vector<std::string> out;
  out.reserve(vals.size());
  for (const ir::Val* val : vals) out.push_back(val->name());
  return out;
}

std::vector<int64_t> concreteShape(const ir::Val* val, const ir::ExpressionEvaluator& evaluator) {
  std::vector<int64_t> shape;
  const auto* tv = val->as<ir::TensorView>();
  if (tv == nullptr) return shape;
  for (const ir::IterDomain* id : tv->logicalNoReductions()) {
    auto value = evaluator.evaluate(id->extentForIteration());
    const auto* size = value ? std::get_if<int64_t>(&*value) : nullptr;
    shape.push_back(size ? *size : -1);
  }
  return shape;
}

report::ExprReport exprFlow(const ir::Expr& expr) {
  return {expr.opName(), names(expr.inputs()), names(expr.outputs())};
}

// The values the segments' exprs touch, each once, in order of first use
// (segment order, then expr order), so the list is the same run to run.
std::vector<report::TensorReport> valueReports(const segmenter::SegmentedFusion& segmented,
                                               const ir::ExpressionEvaluator& evaluator) {
  std::vector<report::TensorReport> values;
  std::set<const ir::Val*> seen;
  const auto add = [&](const ir::Val* val) {
    if (!seen.insert(val).second) return;
    report::TensorReport value;
    value.name = val->name();
    value.scriptName = val->scriptName();
    if (const auto* at = segmented.complete().scriptLocationOf(val)) {
      value.scriptLine = at->line;
    }
    value.dtype = std::string(ir::toString(val->dtype()));
    value.shape = concreteShape(val, evaluator);
    value.isTensor = val->isA<ir::TensorView>();
    const auto* scalar = val->as<ir::Scalar>();
    value.isConstant = scalar != nullptr && scalar->isConst();
    value.isFusionInput = val->isFusionInput();
    value.isFusionOutput = val->isFusionOutput();
    values.push_back(std::move(value));
  };
  for (const auto& group : segmented.groups()) {
    for (const ir::Expr* expr : group.exprs) {
      for (const ir::Val* val : expr->inputs()) add(val);
      for (const ir::Val* val : expr->outputs()) add(val);
    }
  }
  // A fusion output that is a fusion input belongs to no group.
  for (const auto& output : segmented.complete().outputs()) add(output.val);
  return values;
}

report::SegmentReport segmentReport(const segmenter::SegmentedGroup& group) {
  report::SegmentReport segment;
  segment.id = group.id;
  segment.scheduler = std::string(scheduler::toString(group.choice.type));
  segment.launchesKernel = scheduler::launchesKernel(group.choice.type);
  for (const ir::Expr* expr : group.exprs) {
    segment.exprs.push_back(oneLine(*expr));
    segment.exprFlow.push_back(exprFlow(*expr));
  }
  segment.inputs = names(group.inputs);
  segment.outputs = names(group.outputs);
  segment.params = scheduler::paramsToJson(group.choice.params);
  segment.paramsSource = group.choice.paramsSource;
  // A refused provider's entry is named in the note, not as the source.
  segment.paramsNote = group.choice.providerRejection;
  if (segment.paramsNote.empty()) {
    segment.paramsEntryId = group.choice.paramsEntryId;
    segment.paramsOrigin = group.choice.paramsOrigin;
    segment.paramsFallbackDevice = group.choice.paramsFallbackDevice;
  }
  segment.properties = group.choice.properties;
  for (const auto& rejection : group.choice.rejected) {
    segment.rejected.push_back(
        {std::string(scheduler::toString(rejection.scheduler)), rejection.reason});
  }
  if (group.segment) segment.fusionIr = ir::printFusionIr(*group.segment);
  return segment;
}

// The first device of the fusion's meshes (0 without any).
int64_t firstDevice(const ir::Fusion& fusion) {
  for (ir::Val* in : fusion.inputs()) {
    const auto* tv = in->as<ir::TensorView>();
    if (tv != nullptr && tv->hasDeviceMesh()) {
      return tv->deviceMesh().devices().front();
    }
  }
  return 0;
}

}  // namespace

CompiledFusion compileFusion(const ir::Fusion& fusion, const compiler::CompileOptions& options,
                             const scheduler::DeviceSpec& device, const Arguments& inputs,
                             const scheduler::HeuristicProvider* provider, bool withTextDumps) {
  using Clock = std::chrono::steady_clock;
  CompiledFusion result;
  report::CompileReport& report = result.report;

  auto start = Clock::now();
  std::vector<passes::PassRecord> records;
  std::unique_ptr<ir::Fusion> preseg = passes::runPasses(fusion, options, &records);
  ir::ExpressionEvaluator evaluator;
  segmenter::SegmenterContext context;
  context.device = &device;
  context.evaluator = &evaluator;
  // A multi-device fusion is compiled for one device: the first of the
  // mesh, given its shard of any whole input (the inputs block's tensors).
  context.inputs =
      describeInputs(*preseg, shardInputs(*preseg, inputs, firstDevice(*preseg)), evaluator);
  // The one rewrite that depends on the sizes: reductions over axes a
  // reshape merged, computed over the finer axes (a GroupNorm's).
  // Off by default (compile_options.h), and then not in the report.
  if (options.refineReshapedReductions) {
    passes::PassRecord record;
    record.name = std::string(passes::kRefineReshapedReductions);
    passes::refineReshapedReductions(*preseg, evaluator, record);
    records.push_back(std::move(record));
  }
  // Every tensor at the inputs' sizes within 2^48 elements, before any
  // heuristic multiplies them (a broadcast_in_dim to a constant shape).
  ir::checkTensorSizes(*preseg, evaluator);
  // Every op's operands agree in size (as the reference executor asks),
  // before any heuristic or kernel reads past the end of an input.
  ir::checkSizeRelations(*preseg, evaluator);
  context.upcast = options.upcast;
  context.provider = provider;
  double micros = std::chrono::duration<double, std::micro>(Clock::now() - start).count();

  // The dumps are not part of compiling: they stay out of the timing.
  if (withTextDumps) {
    report.fusionIr = ir::printFusionIr(fusion);
    report.fusionIrPreseg = ir::printFusionIr(*preseg);
  }

  start = Clock::now();
  std::vector<segmenter::SegmenterDecision> log;
  result.segmented = std::make_unique<segmenter::SegmentedFusion>(
      segmenter::segmentFusion(std::move(preseg), context, &log));
  micros += std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  report.compileMicroseconds = micros;

  report.device = device.toJson();
  report.options = options.toJson();
  for (const auto& record : records) {
    report.passes.push_back({record.name, record.enabled, record.rewrites});
  }
  const segmenter::SegmentedFusion& segmented = *result.segmented;
  for (const auto& group : segmented.groups()) {
    report.segments.push_back(segmentReport(group));
  }
  for (const auto& edge : segmented.edges()) {
    report.edges.push_back({edge.from, edge.to, edge.val->name(),
                            std::string(ir::toString(edge.val->dtype())),
                            concreteShape(edge.val, evaluator)});
  }
  report.values = valueReports(segmented, evaluator);
  for (const auto& decision : log) {
    report.decisions.push_back(
        {decision.kind, decision.groups, decision.accepted, decision.reason});
  }
  if (withTextDumps) report.segmentedFusion = segmented.toString();
  return result;
}

}  // namespace fuserlab::runtime
