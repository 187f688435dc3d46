// The ExpressionEmitter's ops that read a region of their input: slice (an
// offset index), pad and cat (a branch on the index), and reshape (the
// producer's index from the consumer's, core/codegen/reshape_index.h). Index arithmetic is in
// index_t, the kernel's index type; a slice start that needs clamping is
// computed once per kernel where the caller can hoist it. With vector lanes
// (vector_lanes.h), a lane-affine index stays lane-affine through them, and
// a branch whose bounds are multiples of the vector width is decided on the
// vector's base index, the same for every lane.
#include "core/codegen/expression_emitter.h"

#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "core/codegen/reshape_index.h"
#include "core/ir/error.h"

namespace fuserlab::codegen {

using ir::DataType;
using ir::Expr;
using ir::Scalar;
using ir::TensorView;

std::optional<std::string> ExpressionEmitter::hoistableCondition() const {
  std::string condition;
  for (const Branch& branch : branches_) {
    if (!branch.uniform) return std::nullopt;
    if (branch.condition.empty()) continue;
    condition += (condition.empty() ? "" : " && ") + branch.condition;
  }
  return condition;
}

void ExpressionEmitter::pushBranch(bool uniform, const std::string& condition) {
  pushScope();
  branches_.back() = {uniform && lanes_ != nullptr, condition};
  // Deciding at lane 0 holds only for vectors inside one row.
  if (branches_.back().uniform) lanes_->markRows();
}

std::string ExpressionEmitter::valueWhere(const TensorView* tv, const ElementIndex& index,
                                          const std::string& condition, bool uniform) {
  const std::string variable = temporary("guarded");
  line(std::string(valueType(tv->dtype())) + " " + variable + " = 0;");
  line("if (" + condition + ") {");
  indent_ += 2;
  pushBranch(uniform, condition);
  line(variable + " = " + value(tv, index) + ";");
  popScope();
  indent_ -= 2;
  line("}");
  return variable;
}

IndexSum ExpressionEmitter::indexSum(const Scalar* root) {
  // Sums and differences of integers (a cat's or pad's extents) are split,
  // so their constants fold and equal terms are recognized. On an explicit
  // stack: the extent of a cat of N inputs is N - 1 nested adds (issue 43).
  // Each operand's terms are emitted right before left, as the recursive
  // `indexSum(a) + indexSum(b)` did (GCC evaluates the right operand first).
  IndexSum sum;
  std::map<std::string, int64_t>& terms = sum.terms;
  std::vector<std::pair<const Scalar*, int64_t>> stack{{root, 1}};  // (scalar, sign)
  while (!stack.empty()) {
    const auto [s, sign] = stack.back();
    stack.pop_back();
    if (const std::optional<int64_t> value = s->constInt()) {
      sum.constant += sign * *value;
      continue;
    }
    const Expr* def = s->definition();
    if (def != nullptr && def->type() == ir::ExprType::Binary &&
        (def->attrs().binaryOp == ir::BinaryOpType::Add ||
         def->attrs().binaryOp == ir::BinaryOpType::Sub) &&
        ir::isIntegral(s->dtype())) {
      const auto* a = def->input(0)->as<Scalar>();
      const auto* b = def->input(1)->as<Scalar>();
      if (a != nullptr && b != nullptr && ir::isIntegral(a->dtype()) &&
          ir::isIntegral(b->dtype())) {
        stack.emplace_back(a, sign);
        stack.emplace_back(b, def->attrs().binaryOp == ir::BinaryOpType::Add ? sign : -sign);
        continue;
      }
    }
    terms["(index_t)(" + scalar(s) + ")"] += sign;
  }
  for (auto it = terms.begin(); it != terms.end();) {
    it = it->second == 0 ? terms.erase(it) : std::next(it);
  }
  return sum;
}

std::string ExpressionEmitter::offsetIndex(const std::string& index, const IndexSum& shift) {
  if (shift.isZero()) return index;
  if (lanes_ != nullptr) {
    if (const IndexSum* laneShift = lanes_->shiftOf(index)) {
      return lanes_->shifted(*laneShift + shift);
    }
  }
  return shift.addedTo(index);
}

ElementIndex ExpressionEmitter::sliceIndex(const Expr& expr, const TensorView* producer,
                                           const ElementIndex& index) {
  const auto& producerAxes = producer->logicalNoReductions();
  ElementIndex result;
  for (size_t a = 0; a < producerAxes.size(); ++a) {
    const auto* start = expr.input(3 * a + 1)->as<Scalar>();
    const auto* step = expr.input(3 * a + 3)->as<Scalar>();
    const Scalar* size = producerAxes[a]->extentForIteration();
    // The start clamped into the axis (fl::slice_bound): 0 stays 0, and a
    // constant inside a constant extent is itself.
    IndexSum first;
    const std::optional<int64_t> constStart = start->constInt();
    const std::optional<int64_t> constSize = size->constInt();
    if (constStart && *constStart >= 0 &&
        (*constStart == 0 || (constSize && *constStart <= *constSize))) {
      first = IndexSum::of(*constStart);
    } else {
      const std::string bound =
          "(index_t)fl::slice_bound(" + scalar(start) + ", " + extent(producerAxes[a]) + ")";
      first = IndexSum::term(hooks_.uniformIndex ? hooks_.uniformIndex(bound, "slice_start")
                                                 : "(" + bound + ")");
    }
    if (step->isConstInt(1)) {
      result.push_back(offsetIndex(index.at(a), first));
    } else {
      const IndexSum stride = indexSum(step);
      result.push_back(first.addedTo("(" + stride.text() + " * (" + index.at(a) + "))"));
    }
  }
  return result;
}

std::string ExpressionEmitter::emitPad(const Expr& expr, const TensorView* out,
                                       const ElementIndex& index, const std::string& variable) {
  const auto* x = expr.input(0)->as<TensorView>();
  const auto& xAxes = x->logicalNoReductions();
  ElementIndex xIndex;
  std::string inside;
  bool uniform = true;
  for (size_t a = 0; a < xAxes.size(); ++a) {
    const IndexSum left = indexSum(expr.input(2 * a + 2)->as<Scalar>());
    const IndexSum size = indexSum(xAxes[a]->extentForIteration());
    const std::string position = offsetIndex(index.at(a), IndexSum{} - left);
    xIndex.push_back(position);
    // Tested at the vector's base when every lane agrees: the base is a
    // multiple of the width and so is the extent.
    std::string tested = position;
    if (lanes_ != nullptr && !lanes_->laneFree(position)) {
      const IndexSum* shift = lanes_->shiftOf(position);
      if (shift != nullptr && lanes_->requireAligned({*shift, size})) {
        tested = lanes_->baseOf(position);
      } else {
        uniform = false;
      }
    }
    const std::string test = tested + " >= 0 && " + tested + " < " + size.text();
    inside += inside.empty() ? test : " && " + test;
  }
  if (inside.empty()) inside = "true";
  const auto* padValue = expr.input(1)->as<Scalar>();
  const std::string type(valueType(out->dtype()));
  line(type + " " + variable + ";");
  line("if (" + inside + ") {");
  indent_ += 2;
  pushBranch(uniform, inside);
  const std::string inner = value(x, xIndex);
  line(variable + " = " + convertValue(inner, x->dtype(), out->dtype()) + ";");
  popScope();
  indent_ -= 2;
  line("} else {");
  line("  " + variable + " = " +
       convertValue(scalar(padValue), evaluationDtype(padValue->dtype()), out->dtype()) + ";");
  line("}");
  return variable;
}

std::string ExpressionEmitter::emitCat(const Expr& expr, const TensorView* out,
                                       const ElementIndex& index, const std::string& variable) {
  const int64_t rank = out->rank();
  const int64_t axis = expr.attrs().dim;
  const size_t dim = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  const std::string type(valueType(out->dtype()));
  line(type + " " + variable + ";");
  const std::string& position = index.at(dim);
  const size_t count = expr.inputs().size();
  std::vector<IndexSum> ends;
  for (size_t i = 0; i < count; ++i) {
    const auto* x = expr.input(i)->as<TensorView>();
    const IndexSum size = indexSum(x->logicalNoReductions().at(dim)->extentForIteration());
    ends.push_back(i == 0 ? size : ends.back() + size);
  }
  // The branch is the same for every lane of a vector when the position is
  // lane-free, or lane-affine with its shift and every boundary multiples of
  // the width: then it is decided at the vector's base.
  std::string tested = position;
  bool uniform = true;
  if (lanes_ != nullptr && !lanes_->laneFree(position)) {
    uniform = false;
    if (const IndexSum* shift = lanes_->shiftOf(position)) {
      std::vector<IndexSum> bounds = {*shift};
      bounds.insert(bounds.end(), ends.begin(), ends.end() - 1);
      if (lanes_->requireAligned(bounds)) {
        uniform = true;
        tested = lanes_->baseOf(position);
      }
    }
  }
  for (size_t i = 0; i < count; ++i) {
    const auto* x = expr.input(i)->as<TensorView>();
    const bool last = i + 1 == count;
    const std::string below = tested + " < " + ends[i].text();
    if (i == 0) {
      line(last ? "{" : "if (" + below + ") {");
    } else {
      line(last ? "} else {" : "} else if (" + below + ") {");
    }
    indent_ += 2;
    std::string condition = i == 0 ? "" : tested + " >= " + ends[i - 1].text();
    if (!last) condition += (condition.empty() ? "" : " && ") + below;
    pushBranch(uniform, condition);
    ElementIndex xIndex = index;
    xIndex[dim] = i == 0 ? position : offsetIndex(position, IndexSum{} - ends[i - 1]);
    const auto& xAxes = x->logicalNoReductions();
    for (size_t a = 0; a < xAxes.size(); ++a) {
      if (xAxes[a]->isBroadcast()) xIndex[a] = "0";
    }
    const std::string inner = value(x, xIndex);
    line(variable + " = " + convertValue(inner, x->dtype(), out->dtype()) + ";");
    popScope();
    indent_ -= 2;
  }
  line("}");
  return variable;
}

ElementIndex ExpressionEmitter::reshapeIndex(const TensorView* producer, const TensorView* consumer,
                                             const ElementIndex& index) {
  std::vector<std::string> outExtents, inExtents;
  for (const ir::IterDomain* id : consumer->logicalNoReductions()) outExtents.push_back(extent(id));
  for (const ir::IterDomain* id : producer->logicalNoReductions()) inExtents.push_back(extent(id));
  if (lanes_ != nullptr) {
    // In a vectorized pass, a lane that stays inside one run of the
    // producer's innermost axis keeps it lane-affine: one vector load.
    const ReshapeLanes view{lanes_->lane(), lanes_->base(), lanes_->width()};
    if (std::optional<LaneReshapeIndex> inLanes =
            reshapeProducerIndexInLanes(outExtents, inExtents, index, view)) {
      const std::string base = "(index_t)(" + lanes_->base() + ")";
      lanes_->markAligned(inLanes->innerTerm);
      lanes_->markAligned(base);
      ElementIndex result = std::move(inLanes->index);
      result[inLanes->laneAxis] =
          lanes_->shifted(IndexSum::term(inLanes->innerTerm) - IndexSum::term(base));
      return result;
    }
  }
  return reshapeProducerIndex(outExtents, inExtents, index);
}

}  // namespace fuserlab::codegen
