#include "core/codegen/reduction/reduction_emitter_plan.h"

#include <algorithm>

#include "core/ir/error.h"
#include "core/scheduler/analysis/row_gather.h"

namespace fuserlab::codegen {
namespace {

using ir::DataType;
using ir::ExprType;
using ir::TensorView;

// The reference's accumulation dtype (reference_reduction.cpp).
DataType accumulationDtype(DataType input, DataType output) {
  switch (ir::promote(input, output)) {
    case DataType::Half:
    case DataType::BFloat16:
    case DataType::Float: return DataType::Float;
    case DataType::Double: return DataType::Double;
    default: return DataType::Int;
  }
}

std::vector<const TensorView*> tensorInputs(const ir::Expr& expr) {
  std::vector<const TensorView*> out;
  for (const ir::Val* val : expr.inputs()) {
    if (const auto* tv = val->as<TensorView>()) out.push_back(tv);
  }
  return out;
}

bool contains(const std::vector<const TensorView*>& tvs, const TensorView* tv) {
  return std::find(tvs.begin(), tvs.end(), tv) != tvs.end();
}

}  // namespace

const TensorRole& ReductionPlan::role(const TensorView* tv) const {
  auto it = roles.find(tv);
  FL_ASSERT(it != roles.end(), tv->name(), " has no role in the reduction plan");
  return it->second;
}

bool ReductionPlan::isLeafInPhase(const TensorView* tv, int phase) const {
  const TensorRole& r = role(tv);
  return r.provided || r.perRow || (r.stored && r.available < phase);
}

std::vector<const TensorView*> ReductionPlan::phaseTargets(int phase) const {
  std::vector<const TensorView*> targets;
  auto add = [&](const TensorView* tv) {
    if (!contains(targets, tv)) targets.push_back(tv);
  };
  for (const ReductionStep& step : steps) {
    if (step.phase == phase) add(step.input);
  }
  for (const GatherStep& gather : gathers) {
    if (gather.phase == phase) add(gather.source);
  }
  for (const ReductionStep& step : columnSteps) {
    if (step.phase == phase) add(step.input);
  }
  for (const TensorView* tv : stored) {
    if (role(tv).available == phase) add(tv);
  }
  for (const Output& out : outputs) {
    if (out.perElement && out.available == phase) add(out.tv);
  }
  return targets;
}

std::vector<const ReductionStep*> ReductionPlan::stepsIn(int phase) const {
  std::vector<const ReductionStep*> out;
  for (const ReductionStep& step : steps) {
    if (step.phase == phase) out.push_back(&step);
  }
  return out;
}

std::vector<const ReductionStep*> ReductionPlan::columnStepsIn(int phase) const {
  std::vector<const ReductionStep*> out;
  for (const ReductionStep& step : columnSteps) {
    if (step.phase == phase) out.push_back(&step);
  }
  return out;
}

std::vector<const GatherStep*> ReductionPlan::gathersIn(int phase) const {
  std::vector<const GatherStep*> out;
  for (const GatherStep& gather : gathers) {
    if (gather.phase == phase) out.push_back(&gather);
  }
  return out;
}

ReductionPlan planReduction(const ir::Fusion& segment, const scheduler::ReductionPattern& pattern,
                            const RowLayout& layout, bool persistent,
                            const std::vector<const TensorView*>& storageCandidates) {
  ReductionPlan plan;
  // Row gathers: only inner persistent kernels compute them (the schedulers
  // refuse them elsewhere; a gather left over is refused below as before).
  std::vector<scheduler::RowGather> rowGathers;
  if (persistent && layout.inner) {
    scheduler::RowGatherResult found = scheduler::findRowGathers(segment, pattern);
    FL_CHECK(found.reason.empty(), "code generation: ", found.reason);
    rowGathers = std::move(found.gathers);
  }
  auto addTensor = [&](const TensorView* tv, TensorRole role) {
    if (plan.roles.count(tv) != 0) return;
    plan.roles.emplace(tv, role);
    plan.tensors.push_back(tv);
  };
  for (const ir::Val* val : segment.inputs()) {
    const auto* tv = val->as<TensorView>();
    // An input no expr reads (its extents at most) plays no role.
    if (tv == nullptr || (!tv->isCpuScalar() && !readByKernel(segment, tv))) {
      continue;
    }
    TensorRole role;
    role.provided = true;
    role.perRow = tv->isCpuScalar() || !layout.access(tv).movesAlongElements();
    addTensor(tv, role);
    if (role.perRow) plan.perRowInputs.push_back(tv);
  }

  for (const ir::Expr* expr : segment.exprsForOutputs()) {
    // Scalar exprs (extents, divisors) are computed where they are used.
    if (std::none_of(expr->outputs().begin(), expr->outputs().end(),
                     [](const ir::Val* v) { return v->isA<TensorView>(); })) {
      continue;
    }
    const std::vector<const TensorView*> inputs = tensorInputs(*expr);
    int available = 0;
    bool perRow = true;
    int gather = -1;
    int perColumn = 0;
    for (const TensorView* in : inputs) {
      const TensorRole& r = plan.role(in);
      available = std::max(available, r.available);
      perRow = perRow && r.perRow;
      if (r.gather >= 0) gather = r.gather;
      if (r.perColumn) ++perColumn;
    }
    // What is computed from column sums: per column, from column sums and
    // scalars alone.
    if (perColumn > 0) {
      FL_CHECK(perColumn == static_cast<int>(inputs.size()), "code generation: ", expr->toString(),
               " combines a column sum with a tensor that is not one; a combined "
               "kernel computes only ops of column sums after its rows");
      for (const ir::Val* val : expr->outputs()) {
        const auto* tv = val->as<TensorView>();
        FL_CHECK(tv != nullptr, "code generation: ", expr->toString(),
                 " computes a scalar inside a reduction kernel");
        TensorRole role;
        role.perColumn = true;
        addTensor(tv, role);
        plan.columnComputed.push_back(tv);
      }
      continue;
    }
    if (std::any_of(pattern.columnReductions.begin(), pattern.columnReductions.end(),
                    [&](const scheduler::ReductionInfo& c) { return c.expr == expr; })) {
      const TensorView* in = inputs.at(0);
      const auto* out = expr->output(0)->as<TensorView>();
      FL_CHECK(persistent && layout.inner, "code generation: column sum ", out->name(),
               " needs an inner persistent kernel");
      FL_CHECK(!plan.role(in).perRow && gather < 0, "code generation: column sum ", out->name(),
               " reduces ", in->name(), ", which does not move along the row");
      ReductionStep step;
      step.expr = expr;
      step.input = in;
      step.phase = available;
      step.name = out->name();
      step.compute = accumulationDtype(in->dtype(), out->dtype());
      plan.columnSteps.push_back(step);
      TensorRole role;
      role.perColumn = true;
      addTensor(out, role);
      continue;
    }
    const auto rowGather =
        std::find_if(rowGathers.begin(), rowGathers.end(),
                     [&](const scheduler::RowGather& g) { return g.expr == expr; });
    if (rowGather != rowGathers.end()) {
      GatherStep step;
      step.expr = expr;
      step.source = rowGather->source;
      step.index = rowGather->index;
      step.output = rowGather->output;
      step.dim = rowGather->dim;
      step.phase = available;
      FL_CHECK(plan.role(step.index).perRow && plan.role(step.index).gather < 0,
               "code generation: ", expr->toString(),
               ": the index varies along the row or comes from a gather");
      FL_CHECK(!plan.role(step.source).perRow && plan.role(step.source).gather < 0,
               "code generation: ", expr->toString(),
               ": the gathered tensor does not move along the row");
      TensorRole role;
      role.perRow = true;
      role.provided = true;
      role.available = available + 1;
      role.gather = static_cast<int>(plan.gathers.size());
      plan.gathers.push_back(step);
      addTensor(step.output, role);
      continue;
    }
    if (expr->type() == ExprType::Reduction || expr->type() == ExprType::Welford) {
      const TensorView* in = inputs.at(0);
      const auto* out = expr->output(0)->as<TensorView>();
      FL_CHECK(gather < 0, "code generation: ", expr->toString(),
               " reduces a gathered value, which one thread of the row holds");
      ReductionStep step;
      step.expr = expr;
      step.input = in;
      step.phase = available;
      step.name = out->name();
      TensorRole role;
      role.perRow = true;
      role.provided = true;
      if (expr->type() == ExprType::Reduction) {
        step.kind = ReductionStep::Kind::Reduce;
        step.compute = accumulationDtype(in->dtype(), out->dtype());
        plan.steps.push_back(step);
        role.available = available + 1;
        addTensor(out, role);
        continue;
      }
      step.compute = in->dtype() == DataType::Double ? DataType::Double : DataType::Float;
      int avgAvailable = available + 1;
      int m2Available = available + 1;
      if (persistent) {
        step.kind = ReductionStep::Kind::WelfordMean;
        plan.steps.push_back(step);
        step.kind = ReductionStep::Kind::WelfordM2;
        step.phase = available + 1;
        plan.steps.push_back(step);
        m2Available = available + 2;
      } else {
        step.kind = ReductionStep::Kind::Welford;
        plan.steps.push_back(step);
      }
      role.available = avgAvailable;
      addTensor(expr->output(0)->as<TensorView>(), role);
      role.available = m2Available;
      addTensor(expr->output(1)->as<TensorView>(), role);
      role.available = 0;  // the count is the row length
      addTensor(expr->output(2)->as<TensorView>(), role);
      continue;
    }
    // An iota's value is its index, and one iota can be broadcast along the
    // rows in one use and along the elements in another (a causal mask
    // compares the two): never a per-row value, so each use computes it at
    // its own index. A random op's value is Philox's at its index: the same.
    if (expr->type() == ExprType::Iota || expr->type() == ExprType::Random) {
      perRow = false;
    }
    for (const ir::Val* val : expr->outputs()) {
      const auto* tv = val->as<TensorView>();
      FL_CHECK(tv != nullptr, "code generation: ", expr->toString(),
               " computes a scalar inside a reduction kernel");
      FL_CHECK(gather < 0 || perRow, "code generation: ", tv->name(),
               " combines a gathered value, which one thread of the row "
               "holds, with the row's elements");
      TensorRole role;
      role.available = available;
      role.perRow = perRow;
      role.gather = gather;
      addTensor(tv, role);
      if (perRow) plan.perRowComputed.push_back(tv);
    }
  }

  const std::vector<ir::Val*> outputs = segment.outputVals();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto* tv = outputs[i]->as<TensorView>();
    FL_CHECK(tv != nullptr, "code generation: output ", outputs[i]->name(),
             " of the segment is a scalar, which a kernel cannot return");
    ReductionPlan::Output out;
    out.tv = tv;
    out.index = static_cast<int>(i);
    if (plan.role(tv).perColumn) {
      out.perElement = false;
      plan.columnOutputs.push_back(out);
      continue;
    }
    // Where the output is written: a pass-through output (an input, a CPU
    // scalar too) has its own access, not the input's.
    out.perElement = layout.outputAccess(tv).movesAlongElements();
    out.available = plan.role(tv).available;
    FL_CHECK(out.perElement || plan.role(tv).perRow, "code generation: ", tv->name(),
             " varies along the reduced axes but does not span them");
    plan.outputs.push_back(out);
  }

  int lastPhase = 0;
  for (const ReductionStep& step : plan.steps) {
    lastPhase = std::max(lastPhase, step.phase);
  }
  for (const ReductionPlan::Output& out : plan.outputs) {
    if (out.perElement) lastPhase = std::max(lastPhase, out.available);
  }
  for (const GatherStep& gather : plan.gathers) {
    lastPhase = std::max(lastPhase, gather.phase);
  }
  for (const ReductionStep& step : plan.columnSteps) {
    lastPhase = std::max(lastPhase, step.phase);
  }
  plan.phaseCount = lastPhase + 1;

  // Storage: candidates that hold rows, kept where a later phase reads them
  // as a leaf (a candidate nobody reads back needs no storage).
  if (persistent) {
    for (const TensorView* tv : storageCandidates) {
      auto it = plan.roles.find(tv);
      if (it == plan.roles.end() || it->second.perRow) continue;
      it->second.stored = true;
    }
    std::vector<bool> readBack(plan.tensors.size(), false);
    auto indexOf = [&](const TensorView* tv) {
      return static_cast<size_t>(std::find(plan.tensors.begin(), plan.tensors.end(), tv) -
                                 plan.tensors.begin());
    };
    for (const TensorView* tv : plan.tensors) {
      if (plan.role(tv).stored) plan.stored.push_back(tv);
    }
    for (int phase = 0; phase < plan.phaseCount; ++phase) {
      std::vector<const TensorView*> stack = plan.phaseTargets(phase);
      std::vector<const TensorView*> seen;
      while (!stack.empty()) {
        const TensorView* tv = stack.back();
        stack.pop_back();
        if (contains(seen, tv)) continue;
        seen.push_back(tv);
        if (plan.isLeafInPhase(tv, phase)) {
          const TensorRole& r = plan.role(tv);
          if (r.stored && r.available < phase) readBack[indexOf(tv)] = true;
          continue;
        }
        const ir::Expr* def = tv->definition();
        FL_ASSERT(def != nullptr, tv->name(), " has no definition");
        for (const TensorView* in : tensorInputs(*def)) stack.push_back(in);
      }
    }
    plan.stored.clear();
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
      TensorRole& r = plan.roles[plan.tensors[i]];
      if (r.stored && !readBack[i]) r.stored = false;
      if (r.stored) plan.stored.push_back(plan.tensors[i]);
    }
  }
  return plan;
}

}  // namespace fuserlab::codegen
