#include "core/codegen/sort_emitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/codegen/axis_lines.h"
#include "core/codegen/expression_emitter.h"
#include "core/codegen/kernel_interface.h"
#include "core/ir/compute_dtype.h"
#include "core/ir/error.h"
#include "core/scheduler/pointwise/sort_segment.h"

namespace fuserlab::codegen {
namespace {

using ir::DataType;
using ir::TensorView;

std::string str(int64_t value) { return std::to_string(value); }

int64_t nextPowerOfTwo(int64_t value) {
  int64_t p = 1;
  while (p < value) p *= 2;
  return p;
}

// `index` with `axis` replaced by `position`.
ElementIndex at(ElementIndex index, int64_t axis, const std::string& position) {
  if (!index.empty()) index[static_cast<size_t>(axis)] = position;
  return index;
}

}  // namespace

GeneratedKernel emitSortKernel(const ir::Fusion& segment, const scheduler::PointwiseParams& params,
                               const scheduler::SegmentRuntimeInfo& info, std::string_view name) {
  const ir::Expr* sort = scheduler::sortOf(segment);
  FL_ASSERT(sort != nullptr, "emitSortKernel: the segment holds no argsort or topk");
  FL_CHECK(info.evaluator != nullptr, "code generation: ", name,
           ": a sort kernel needs the segment's bound sizes");
  FL_CHECK(params.blockDimX >= 32 && params.blockDimX <= 1024 && params.blockDimX % 32 == 0,
           "code generation: block_dim_x ", params.blockDimX,
           " is not a multiple of 32 up to 1024, which a sort kernel needs");
  const bool topk = sort->type() == ir::ExprType::TopK;
  const auto* x = sort->input(0)->as<TensorView>();
  FL_ASSERT(x != nullptr, "a sort reads a tensor");
  const int64_t axis = sort->attrs().dim;
  // argsort's descending, topk's largest: both order the largest first.
  const bool descending = sort->attrs().flags.at(0);
  const int64_t rank = x->rank();

  KernelInterface interface(segment, info, !params.useInt32Indexing);
  GeneratedKernel kernel;
  kernel.name = std::string(name);
  kernel.parameters = interface.parameters();
  kernel.int64Indexing = interface.int64Indexing();

  // The input's extents at the bound sizes, built in: the executor builds a
  // kernel per set of sizes, and the output parameters record theirs.
  const AxisLines walk = axisLines(*x, axis, info);
  const std::vector<int64_t>& extents = walk.extents;
  const int64_t lines = walk.lines;
  const int64_t length = walk.length;
  FL_CHECK(length <= scheduler::kMaxSortRow, "code generation: ", name, ": ", sort->toString(),
           " sorts lines of ", length, " elements; the sort kernel holds at most ",
           scheduler::kMaxSortRow);
  std::vector<const TensorView*> outputs;
  for (const ir::Val* val : sort->outputs()) outputs.push_back(val->as<TensorView>());
  FL_ASSERT(outputs.size() == (topk ? 2u : 1u) &&
                std::all_of(outputs.begin(), outputs.end(),
                            [](const TensorView* tv) { return tv != nullptr; }),
            sort->toString(), ": expected tensor outputs");
  // How many sorted positions are written: the line (argsort), or topk's k,
  // read from the values' size at run time (k may be a scalar input, which
  // the kernel is not built per value of).
  // topk's values or positions may be unused (dead past the segment): only
  // those that are kernel outputs are written, and the size comes from either.
  const TensorView* values = topk && interface.isOutputParameter(outputs[0]) ? outputs[0] : nullptr;
  const TensorView* positions =
      topk ? (interface.isOutputParameter(outputs[1]) ? outputs[1] : nullptr) : outputs[0];
  FL_ASSERT(values != nullptr || positions != nullptr, sort->toString(),
            ": neither of its outputs is an output of the kernel");
  std::string written = str(length);
  if (topk && rank > 0) {
    const TensorView* sized = values != nullptr ? values : positions;
    written = "(int)" + interface.parameterName(sized, true) + ".size[" + str(axis) + "]";
  } else if (topk) {
    written = "1";
  } else {
    for (KernelParameter& p : kernel.parameters) {
      if (p.segmentOutput >= 0 && p.name == interface.parameterName(outputs[0], true)) {
        p.builtInSizes = extents;
      }
    }
  }
  const int64_t padded = nextPowerOfTwo(std::max<int64_t>(length, 1));
  kernel.launch.block = {params.blockDimX, 1, 1};
  kernel.launch.grid = {std::clamp<int64_t>(lines, 1, kMaxGridX), 1, 1};

  const std::string keyType(valueType(ir::computeDtype(x->dtype())));
  const std::string& in = interface.parameterName(x, false);
  ElementIndex index;
  for (int64_t k = 0; k < rank; ++k) index.push_back(k == axis ? "j" : "a" + str(k));

  std::string src = kernelComment(kernel.name, "pointwise (sort)", segment, params.toString());
  src += "//\n// One block per line along axis " + str(axis) + " (" + str(length) +
         " elements, padded to " + str(padded) + "), " + str(lines) +
         " lines: a bitonic sort of (value, position) pairs in shared memory, " +
         (descending ? "descending" : "ascending") +
         " with NaN the largest, equal values in position order.\n";
  for (const std::string& note : interface.specialized()) src += "// specialized: " + note + "\n";
  src += "#include \"fuserlab_device.cuh\"\n\n";
  // The order: a total order on the pairs (positions are distinct); the
  // padding (positions >= n) after every element.
  const std::string before = kernel.name + "_before";
  src += "// Whether (a, pa) comes before (b, pb) in the sorted line.\n";
  src += "static __device__ __forceinline__ bool " + before + "(" + keyType + " a, int pa, " +
         keyType + " b, int pb) {\n";
  src += "  if (pa >= " + str(length) + " || pb >= " + str(length) + ") return pa < pb;\n";
  const std::string first = descending ? "b" : "a";
  const std::string second = descending ? "a" : "b";
  src += "  const bool less = !fl::is_nan(" + first + ") && (fl::is_nan(" + second + ") || " +
         first + " < " + second + ");\n";
  src += "  const bool greater = !fl::is_nan(" + second + ") && (fl::is_nan(" + first + ") || " +
         second + " < " + first + ");\n";
  src += "  return less || (!greater && pa < pb);\n}\n\n";
  src += interface.signature(kernel.name) + " {\n";
  src += kKernelEntry;
  src += interface.prologue(2);
  src += walk.declarations(/*withAxis=*/false, "");
  src += "  constexpr int n = " + str(length) + ";\n";
  src += "  constexpr int padded = " + str(padded) + ";\n";
  src += "  __shared__ " + keyType + " key[padded];\n";
  src += "  __shared__ int position[padded];\n";
  src += "  for (index_t line = (index_t)blockIdx.x; line < lines; line += (index_t)gridDim.x) {\n";
  src += walk.positionCode(4);
  src += "    for (int j = (int)threadIdx.x; j < padded; j += (int)blockDim.x) {\n";
  src += "      position[j] = j;\n";
  src += "      key[j] = j < n ? (" + keyType + ")fl::load_value(" + in + ".data[" +
         interface.offset(x, index) + "]) : " + keyType + "();\n";
  src += "    }\n";
  src += "    for (int size = 2; size <= padded; size <<= 1) {\n";
  src += "      for (int stride = size >> 1; stride > 0; stride >>= 1) {\n";
  src += "        __syncthreads();\n";
  src += "        for (int t = (int)threadIdx.x; t < padded / 2; t += (int)blockDim.x) {\n";
  src += "          const int i = 2 * t - (t & (stride - 1));\n";
  src += "          const int k = i + stride;\n";
  src += "          // Ascending runs where bit `size` of i is clear, descending where set.\n";
  src += "          if (" + before +
         "(key[k], position[k], key[i], position[i]) == ((i & size) == 0)) {\n";
  src += "            const " + keyType + " kv = key[i]; key[i] = key[k]; key[k] = kv;\n";
  src += "            const int kp = position[i]; position[i] = position[k]; position[k] = kp;\n";
  src += "          }\n";
  src += "        }\n";
  src += "      }\n";
  src += "    }\n";
  src += "    __syncthreads();\n";
  src += "    const int written = " + written + ";\n";
  src += "    for (int j = (int)threadIdx.x; j < written; j += (int)blockDim.x) {\n";
  src += "      const int p = position[j];\n";
  if (values != nullptr) {
    src += "      " + interface.parameterName(values, true) + ".data[" +
           interface.offset(values, index, true) + "] = " + in + ".data[" +
           interface.offset(x, at(index, axis, "p")) + "];\n";
  }
  if (positions != nullptr) {
    src += "      " + interface.parameterName(positions, true) + ".data[" +
           interface.offset(positions, index, true) + "] = (int64_t)p;\n";
  }
  src += "    }\n";
  src += "    __syncthreads();  // the next line reuses the shared memory\n";
  src += "  }\n}\n";
  kernel.source = std::move(src);
  kernel.waitsForPriorGrids = true;
  return kernel;
}

}  // namespace fuserlab::codegen
