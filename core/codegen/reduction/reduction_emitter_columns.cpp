// The ReductionKernelBuilder pieces of column sums (ReductionPlan::
// columnSteps, the combined norm-backward kernel): the names of a column
// sum's accumulators and finished value, and the per-column outputs written
// from the finished sums after every row. The loops around them (which
// thread adds which columns, the grid barrier) are the persistent
// emitter's.
#include "core/codegen/reduction/reduction_emitter_common.h"

namespace fuserlab::codegen {

using ir::TensorView;

std::string ReductionKernelBuilder::columnAccumulator(const ReductionStep& step) const {
  return "col_" + step.name;
}

std::string ReductionKernelBuilder::columnResult(const ReductionStep& step) const {
  return "cres_" + step.name;
}

void ReductionKernelBuilder::declareColumnResult(const ReductionStep& step, int indent,
                                                 const std::string& sum) {
  const ir::DataType out = step.expr->output(0)->as<TensorView>()->dtype();
  line(indent, "const " + std::string(valueType(out)) + " " + columnResult(step) + " = " +
                   convertValue(sum, step.compute, out) + ";");
}

void ReductionKernelBuilder::emitColumnOutputs(int indent, const std::string& element,
                                               const std::string& condition) {
  mode_ = Mode::Column;
  emitter_.setIndent(indent);
  emitter_.pushScope();
  for (const ReductionPlan::Output& out : plan_.columnOutputs) {
    const std::string value = emitter_.storedValue(out.tv, indexFor(out.tv, "0", element));
    append(emitter_.takeCode());
    const TensorAccess& access = layout_.outputAccess(out.tv);
    line(indent, "if (" + condition + ") " + dataOf(out.tv, true) + "[" +
                     offsetAt(access, "0", element) + "] = fl::to_element<" + elementOf(out.tv) +
                     ">(" + value + ");");
  }
  emitter_.popScope();
  mode_ = Mode::RowStage;
}

}  // namespace fuserlab::codegen
