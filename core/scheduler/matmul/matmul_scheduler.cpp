#include "core/scheduler/matmul/matmul_scheduler.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/ir/tensor_view.h"
#include "core/scheduler/analysis/analysis_cache.h"
#include "core/scheduler/expr_summary.h"
#include "core/scheduler/matmul/attention_choice.h"
#include "core/scheduler/matmul/epilogue_matcher.h"

namespace fuserlab::scheduler {
namespace {

using ir::ExprType;

bool isLibraryCall(ExprType type) {
  return type == ExprType::Matmul || type == ExprType::Linear || type == ExprType::Sdpa;
}

std::vector<const ir::Expr*> tensorExprs(const ir::Fusion& segment) {
  std::vector<const ir::Expr*> out;
  for (const ir::Expr* expr : liveExprs(segment)) {
    for (const ir::Val* v : expr->outputs()) {
      if (v->isA<ir::TensorView>()) {
        out.push_back(expr);
        break;
      }
    }
  }
  return out;
}

const ir::Expr* libraryCall(const std::vector<const ir::Expr*>& exprs) {
  for (const ir::Expr* expr : exprs) {
    if (isLibraryCall(expr->type())) return expr;
  }
  return nullptr;
}

std::string unmergedReasons(const MatmulMatch& match) {
  std::string out;
  for (const EpilogueStep& step : match.steps) {
    if (step.merged) continue;
    out += (out.empty() ? "" : "; ") + step.what + ": " + step.reason;
  }
  return out;
}

}  // namespace

std::optional<std::string> MatmulScheduler::rejectCompileTime(const ir::Fusion& segment) const {
  const std::vector<const ir::Expr*> exprs = tensorExprs(segment);
  const ir::Expr* call = libraryCall(exprs);
  if (call == nullptr) {
    return "no matmul, linear or sdpfa_fwd: the matmul scheduler runs library "
           "calls";
  }
  for (const ir::Expr* expr : exprs) {
    if (expr != call && isLibraryCall(expr->type())) {
      return exprSummary(*call) + " and " + exprSummary(*expr) +
             " are two library calls; each runs in a segment of its own";
    }
  }
  for (const ir::FusionOutput& output : segment.outputs()) {
    if (output.aliasOf != nullptr) {
      return "output " + output.val->name() + " is written in place into input " +
             output.aliasOf->name() + " (alias_input), which a library call does not do";
    }
  }
  if (call->type() == ExprType::Sdpa) {
    if (exprs.size() != 1) {
      const ir::Expr* other = exprs[0] != call ? exprs[0] : exprs[1];
      return exprSummary(*call) + " runs alone, never merged with other ops, but " +
             exprSummary(*other) + " shares the segment";
    }
    return std::nullopt;
  }
  const ir::DataType dtype = call->input(0)->dtype();
  if (dtype != ir::DataType::BFloat16 && dtype != ir::DataType::Half &&
      dtype != ir::DataType::Float) {
    return exprSummary(*call) + " has " + std::string(ir::toString(dtype)) +
           " operands; the cuBLASLt call takes BFloat16, Half or Float";
  }
  if (call->type() == ExprType::Linear && call->inputs().size() > 2) {
    const auto* bias = call->input(2)->as<ir::TensorView>();
    if (bias != nullptr && bias->rank() != 1) {
      return exprSummary(*call) +
             " has a 0-dim bias; cuBLASLt's bias is a "
             "vector along the output features";
    }
  }
  const MatmulMatch match = matchMatmulEpilogue(segment, *call);
  for (const ir::Expr* expr : exprs) {
    if (std::find(match.exprs.begin(), match.exprs.end(), expr) == match.exprs.end()) {
      const std::string why = unmergedReasons(match);
      return exprSummary(*expr) + " is not part of the epilogue cuBLASLt fuses into " +
             exprSummary(*call) + (why.empty() ? "" : " (" + why + ")");
    }
  }
  return std::nullopt;
}

std::optional<std::string> MatmulScheduler::rejectRunTime(const ir::Fusion& segment,
                                                          const SegmentRuntimeInfo& info) const {
  return std::nullopt;
}

HeuristicParams MatmulScheduler::computeHeuristics(const ir::Fusion& segment,
                                                   const SegmentRuntimeInfo& info) const {
  const ir::Expr* call = libraryCall(tensorExprs(segment));
  FL_ASSERT(call != nullptr, "matmul heuristics of a segment without a library call");
  MatmulParams params;
  if (call->type() == ExprType::Sdpa) {
    params.backend = "attention_kernel";
    params.epilogue = "none";
    params.outputDtype = std::string(ir::toString(call->output(0)->dtype()));
    params.algo = "heuristic";
    return params;
  }
  const MatmulMatch match = matchMatmulEpilogue(segment, *call);
  params.backend = "cublaslt";
  params.epilogue = match.epilogue;
  params.outputDtype = std::string(ir::toString(match.outputDtype));
  params.algo = "heuristic";
  return params;
}

std::optional<std::string> MatmulScheduler::rejectParams(const ir::Fusion& segment,
                                                         const SegmentRuntimeInfo& info,
                                                         const HeuristicParams& params) const {
  const auto* given = std::get_if<MatmulParams>(&params);
  if (given == nullptr) {
    return "expected matmul params, got " + std::string(paramsKind(params)) + " params";
  }
  const auto expected = std::get<MatmulParams>(computeHeuristics(segment, info));
  if (given->backend != expected.backend || given->epilogue != expected.epilogue ||
      given->outputDtype != expected.outputDtype) {
    return "backend, epilogue and output dtype follow from the fusion (" + expected.backend + ", " +
           expected.epilogue + ", " + expected.outputDtype + "), but the params say " +
           given->backend + ", " + given->epilogue + ", " + given->outputDtype;
  }
  if (heuristicIndex(given->algo) < 0) {
    return "algo must be \"heuristic\" or \"heuristic:N\", found \"" + given->algo + "\"";
  }
  return std::nullopt;
}

report::Json MatmulScheduler::properties(const ir::Fusion& segment,
                                         const SegmentRuntimeInfo& info) const {
  report::Json json = report::Json::object();
  const ir::Expr* call = libraryCall(tensorExprs(segment));
  if (call == nullptr) return json;
  json.set("op", call->opName());
  if (call->type() == ExprType::Sdpa) {
    json.set("backend", "attention_kernel");
    const auto* q = call->input(0)->as<ir::TensorView>();
    const auto* k = call->input(1)->as<ir::TensorView>();
    const auto* v = call->input(2)->as<ir::TensorView>();
    std::optional<std::string> refusal = std::string("the sizes are not bound");
    if (info.evaluator != nullptr) {
      const int64_t depth = info.evaluator->evaluateExtent(q->logicalNoReductions()[3]);
      const int64_t valueDepth = info.evaluator->evaluateExtent(v->logicalNoReductions()[3]);
      json.set("head_dimension", depth);
      refusal =
          tiledAttentionRefusal(q->dtype(), k->dtype(), v->dtype(), depth, valueDepth,
                                info.device != nullptr ? info.device->computeCapability() : 80);
    }
    json.set("kernel", refusal ? "one_row" : "tiled_tensor_core");
    json.set("why", refusal
                        ? "no cuDNN in this build: a generated kernel, one thread block per "
                          "(batch, head, query row), float accumulation (no tensor cores: " +
                              *refusal + ")"
                        : "no cuDNN in this build: a generated kernel on tensor cores, 64 query "
                          "rows a block, 64-key tiles in shared memory, online softmax "
                          "(FlashAttention-2's scheme), float accumulation");
    return json;
  }
  const MatmulMatch match = matchMatmulEpilogue(segment, *call);
  json.set("backend", "cublaslt");
  json.set("epilogue", match.epilogue);
  json.set("output_dtype", std::string(ir::toString(match.outputDtype)));
  report::Json steps = report::Json::array();
  for (const EpilogueStep& step : match.steps) {
    steps.push(std::string(step.merged ? "merged " : "not merged ") + step.what + ": " +
               step.reason);
  }
  json.set("epilogue_steps", std::move(steps));
  return json;
}

}  // namespace fuserlab::scheduler
