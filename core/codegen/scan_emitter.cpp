#include "core/codegen/scan_emitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/codegen/axis_lines.h"
#include "core/codegen/expression_emitter.h"
#include "core/codegen/kernel_interface.h"
#include "core/codegen/operator_text.h"
#include "core/ir/compute_dtype.h"
#include "core/ir/error.h"
#include "core/scheduler/pointwise/scan_segment.h"

namespace fuserlab::codegen {
namespace {

using ir::DataType;
using ir::TensorView;

std::string str(int64_t value) { return std::to_string(value); }

}  // namespace

GeneratedKernel emitScanKernel(const ir::Fusion& segment, const scheduler::PointwiseParams& params,
                               const scheduler::SegmentRuntimeInfo& info, std::string_view name) {
  const ir::Expr* scan = scheduler::scanOf(segment);
  FL_ASSERT(scan != nullptr, "emitScanKernel: the segment holds no scan");
  FL_CHECK(info.evaluator != nullptr, "code generation: ", name,
           ": a scan kernel needs the segment's bound sizes");
  FL_CHECK(params.blockDimX >= 1 && params.blockDimX <= 1024, "code generation: block_dim_x ",
           params.blockDimX, " is not a CUDA block size");
  const auto* x = scan->input(0)->as<TensorView>();
  const auto* y = scan->output(0)->as<TensorView>();
  FL_ASSERT(x != nullptr && y != nullptr, "a scan reads and writes tensors");
  const int64_t axis = scan->attrs().dim;
  const int64_t rank = y->rank();

  KernelInterface interface(segment, info, !params.useInt32Indexing);
  GeneratedKernel kernel;
  kernel.name = std::string(name);
  kernel.parameters = interface.parameters();
  kernel.int64Indexing = interface.int64Indexing();

  // The output's extents at the bound sizes, built in: the executor builds a
  // kernel per set of sizes, and the output parameter records them.
  const AxisLines walk = axisLines(*y, axis, info);
  const std::vector<int64_t>& extents = walk.extents;
  const int64_t lines = walk.lines;
  const int64_t length = walk.length;
  const std::string& in = interface.parameterName(x, false);
  const std::string& out = interface.parameterName(y, true);
  for (KernelParameter& p : kernel.parameters) {
    if (p.segmentOutput >= 0 && p.name == out) p.builtInSizes = extents;
  }
  kernel.launch.block = {params.blockDimX, 1, 1};
  kernel.launch.grid = {
      std::clamp<int64_t>((lines + params.blockDimX - 1) / params.blockDimX, 1, kMaxGridX), 1, 1};

  const DataType accumulator = ir::computeDtype(y->dtype());
  const std::string accType(valueType(accumulator));
  const std::string combined = binaryOp(scan->attrs().binaryOp, accumulator, "acc", "v").first;
  // The start: init converted to the accumulator's dtype, or the line's
  // first element (every scan op's identity combined with it is itself).
  std::string start;
  if (scan->inputs().size() > 1) {
    const auto* init = scan->input(1)->as<ir::Scalar>();
    FL_ASSERT(init != nullptr, "a scan's init is a scalar");
    ExpressionHooks hooks;
    hooks.symbolicScalar = [&](const ir::Scalar* s) { return interface.symbolicScalar(s); };
    hooks.loadLeaf = [](const TensorView* tv, const ElementIndex&) -> std::string {
      FL_ASSERT(false, "a scan's init reads no tensor, yet ", tv->name(), " was loaded");
      return {};
    };
    ExpressionEmitter scalars(segment, std::move(hooks), /*indexed=*/false);
    const std::string value = scalars.scalar(init);
    FL_CHECK(scalars.takeCode().empty(), "code generation: ", name, ": the scan's init ",
             init->name(),
             " is computed by scalar ops; a scan kernel takes a constant or a "
             "scalar input");
    start = convertValue(value, evaluationDtype(init->dtype()), accumulator);
  }

  ElementIndex index;
  for (int64_t k = 0; k < rank; ++k) index.push_back(k == axis ? "j" : "a" + str(k));

  std::string src = kernelComment(kernel.name, "pointwise (scan)", segment, params.toString());
  src += "//\n// One thread per line along axis " + str(axis) + " (" + str(length) +
         " elements), " + str(lines) + " lines.\n";
  for (const std::string& note : interface.specialized()) src += "// specialized: " + note + "\n";
  src += "#include \"fuserlab_device.cuh\"\n\n";
  src += interface.signature(kernel.name) + " {\n";
  src += kKernelEntry;
  src += interface.prologue(2);
  // The extents the loops divide by or run to.
  src += walk.declarations(/*withAxis=*/true, out);
  src +=
      "  for (index_t line = (index_t)blockIdx.x * (index_t)blockDim.x + (index_t)threadIdx.x;"
      " line < lines;\n       line += (index_t)gridDim.x * (index_t)blockDim.x) {\n";
  src += walk.positionCode(4);
  src += "    " + accType + " acc = " + (start.empty() ? accType + "()" : start) + ";\n";
  // A 0-dim tensor is one line of one element (its offsets are 0).
  const std::string lineLength = rank == 0 ? std::string("(index_t)1") : "e" + str(axis);
  src += "    for (index_t j = 0; j < " + lineLength + "; ++j) {\n";
  src += "      const " + accType + " v = (" + accType + ")fl::load_value(" + in + ".data[" +
         interface.offset(x, index) + "]);\n";
  if (start.empty()) {
    src += "      acc = j == 0 ? v : " + combined + ";\n";
  } else {
    src += "      acc = " + combined + ";\n";
  }
  src += "      " + out + ".data[" + interface.offset(y, index, true) + "] = fl::to_element<" +
         std::string(elementType(y->dtype())) + ">(acc);\n";
  src += "    }\n  }\n}\n";
  kernel.source = std::move(src);
  kernel.waitsForPriorGrids = true;
  return kernel;
}

}  // namespace fuserlab::codegen
