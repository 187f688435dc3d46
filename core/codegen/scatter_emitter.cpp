#include "core/codegen/scatter_emitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/codegen/expression_emitter.h"
#include "core/codegen/kernel_interface.h"
#include "core/codegen/reduction/reduction_emitter_common.h"
#include "core/ir/error.h"
#include "core/scheduler/pointwise/scatter_segment.h"

namespace fuserlab::codegen {
namespace {

using ir::DataType;
using ir::TensorView;

// Blocks an SM the grid may take: the grid barrier needs every block
// resident at once, which two blocks of at most 256 threads and at most 64
// registers a thread always are (fewer than 2048 threads and 65536 registers
// an SM on every architecture FuserLab targets).
constexpr int64_t kBlocksPerSm = 2;
constexpr int64_t kRegisterCap = 64;
// The workspace starts with the barrier's two counters; the sums of a
// workspace accumulation follow at this offset.
constexpr int64_t kCounterBytes = 256;

std::string str(int64_t value) { return std::to_string(value); }

// Statements that set index_t coordinates `prefix<k>` for k in [first,
// rank) from the linear position `linear` over `tensor`'s run-time sizes,
// the innermost axis fastest (axis `first` takes what is left).
std::string decompose(const std::string& linear, const std::string& tensor, int64_t first,
                      int64_t rank, const std::string& prefix, const std::string& pad) {
  if (first >= rank) return {};
  std::string text = pad + "long long rest = " + linear + ";\n";
  for (int64_t k = rank - 1; k > first; --k) {
    text += pad + "const index_t " + prefix + str(k) + " = (index_t)(rest % " + tensor + ".size[" +
            str(k) + "]); rest /= " + tensor + ".size[" + str(k) + "];\n";
  }
  text += pad + "const index_t " + prefix + str(first) + " = (index_t)rest;\n";
  return text;
}

// "T.size[first] * ... * T.size[rank - 1]" as long long; "1LL" when empty.
std::string product(const std::string& tensor, int64_t first, int64_t rank) {
  std::string text = "1LL";
  for (int64_t k = first; k < rank; ++k)
    text += " * (long long)" + tensor + ".size[" + str(k) + "]";
  return text;
}

ElementIndex coordinates(const std::string& prefix, int64_t rank) {
  ElementIndex index;
  for (int64_t k = 0; k < rank; ++k) index.push_back(prefix + str(k));
  return index;
}

// Whether index_put_accumulate of `dtype` adds into a workspace in the
// reference's compute dtype rather than into the output.
bool accumulatesInWorkspace(DataType dtype) {
  return dtype == DataType::Half || dtype == DataType::BFloat16 || dtype == DataType::Bool;
}

// The C type of the workspace sums (the reference's computeDtype).
std::string workspaceType(DataType dtype) {
  return dtype == DataType::Bool ? "unsigned long long" : "float";
}

// `target += value` atomically, for an output element of `dtype` added to
// directly (Float, Double, Int32, Int).
std::string atomicAdd(DataType dtype, const std::string& target, const std::string& value) {
  switch (dtype) {
    case DataType::Float: return "atomicAdd(&" + target + ", (float)(" + value + "))";
    case DataType::Double: return "atomicAdd(&" + target + ", (double)(" + value + "))";
    case DataType::Int32: return "atomicAdd((int*)&" + target + ", (int)(" + value + "))";
    case DataType::Int:
      return "atomicAdd((unsigned long long*)&" + target + ", (unsigned long long)(" + value + "))";
    default: break;
  }
  FL_ASSERT(false, "no direct atomic add for ", ir::toString(dtype));
  return {};
}

}  // namespace

GeneratedKernel emitIndexedWriteKernel(const ir::Fusion& segment,
                                       const scheduler::PointwiseParams& params,
                                       const scheduler::SegmentRuntimeInfo& info,
                                       std::string_view name) {
  const ir::Expr* write = scheduler::indexedWriteOf(segment);
  FL_ASSERT(write != nullptr, "emitIndexedWriteKernel: the segment holds no scatter");
  FL_CHECK(info.evaluator != nullptr && info.device != nullptr, "code generation: ", name,
           ": an indexed-write kernel needs the segment's bound sizes and device");
  FL_CHECK(params.blockDimX >= 32 && params.blockDimX <= 256 && params.blockDimX % 32 == 0,
           "code generation: block_dim_x ", params.blockDimX,
           " is not a multiple of 32 up to 256, which an indexed-write kernel needs");
  const bool accumulate = write->type() == ir::ExprType::IndexPutAccumulate;
  const auto* x = write->input(0)->as<TensorView>();
  const auto* index = write->input(1)->as<TensorView>();
  const auto* y = write->output(0)->as<TensorView>();
  FL_ASSERT(x != nullptr && index != nullptr && y != nullptr, write->toString(),
            ": expected tensors written into, index and output");
  const int64_t rank = y->rank();
  const int64_t dim = accumulate ? 0 : write->attrs().dim;
  const DataType dtype = y->dtype();
  const bool inWorkspace = accumulate && accumulatesInWorkspace(dtype);

  KernelInterface interface(segment, info, !params.useInt32Indexing);
  GeneratedKernel kernel;
  kernel.name = std::string(name);
  kernel.parameters = interface.parameters();
  kernel.int64Indexing = interface.int64Indexing();

  // Sizes at the bound inputs: the grid and the workspace are sized from
  // them, so the output parameter records them (the executor builds a kernel
  // per set of sizes and checks it).
  std::vector<int64_t> extents;
  int64_t elements = 1;
  for (const ir::IterDomain* id : y->logicalNoReductions()) {
    extents.push_back(info.evaluator->evaluateExtent(id));
    elements *= extents.back();
  }
  int64_t positions = 1;
  for (const ir::IterDomain* id : index->logicalNoReductions()) {
    positions *= info.evaluator->evaluateExtent(id);
  }
  if (accumulate) positions *= rank == 0 ? 1 : elements / std::max<int64_t>(1, extents[0]);
  const std::string& in = interface.parameterName(x, false);
  const std::string& idx = interface.parameterName(index, false);
  const std::string& out = interface.parameterName(y, true);
  for (KernelParameter& p : kernel.parameters) {
    if (p.segmentOutput >= 0 && p.name == out) p.builtInSizes = extents;
  }
  const int64_t threads = params.blockDimX;
  const int64_t work = std::max<int64_t>({elements, positions, 1});
  const int64_t resident = std::max<int64_t>(1, info.device->smCount) * kBlocksPerSm;
  kernel.launch.block = {threads, 1, 1};
  kernel.launch.grid = {std::clamp<int64_t>((work + threads - 1) / threads, 1, resident), 1, 1};
  kernel.workspaceBytes = kCounterBytes + (inWorkspace ? elements * 8 : 0);
  // grid_sync_reset leaves the counters at zero; the sums are written whole
  // by the first phase.
  kernel.zeroWorkspaceEachLaunch = false;
  kernel.options.push_back("--maxrregcount=" + str(kRegisterCap));

  const std::string element(elementType(dtype));
  const ElementIndex a = coordinates("a", rank);
  std::string body;
  body += interface.prologue(2);
  body += "  unsigned* const fl_counters = (unsigned*)workspace;\n";
  if (inWorkspace) {
    body += "  " + workspaceType(dtype) + "* const fl_sums = (" + workspaceType(dtype) +
            "*)((char*)workspace + " + str(kCounterBytes) + ");\n";
  }
  body += "  const long long fl_stride = (long long)gridDim.x * blockDim.x;\n";
  body += "  const long long fl_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n";
  body += "  const long long fl_elements = " + product(out, 0, rank) + ";\n";
  body += "  // 1. " + in + " copied to " + out + (inWorkspace ? "'s sums" : "") + ".\n";
  body += "  for (long long i = fl_first; i < fl_elements; i += fl_stride) {\n";
  body += decompose("i", out, 0, rank, "a", "    ");
  if (inWorkspace) {
    body += "    fl_sums[i] = (" + workspaceType(dtype) + ")fl::load_value(" + in + ".data[" +
            interface.offset(x, a) + "]);\n";
  } else {
    body += "    " + out + ".data[" + interface.offset(y, a, true) + "] = " + in + ".data[" +
            interface.offset(x, a) + "];\n";
  }
  body += "  }\n";
  body += "  fl::red::grid_sync(fl_counters, gridDim.x, 1u);\n";

  if (!accumulate) {
    const ir::Val* src = write->input(2);
    const auto* srcTensor = src->as<TensorView>();
    const ElementIndex b = coordinates("b", rank);
    std::string value;
    if (srcTensor != nullptr) {
      value = interface.parameterName(srcTensor, false) + ".data[" +
              interface.offset(srcTensor, b) + "]";
    } else {
      const auto* scalar = src->as<ir::Scalar>();
      FL_ASSERT(scalar != nullptr, "scatter's src is a tensor or a scalar");
      ExpressionHooks hooks;
      hooks.symbolicScalar = [&](const ir::Scalar* s) { return interface.symbolicScalar(s); };
      hooks.loadLeaf = [](const TensorView* tv, const ElementIndex&) -> std::string {
        FL_ASSERT(false, "a scatter's scalar src reads no tensor, yet ", tv->name(), " was loaded");
        return {};
      };
      ExpressionEmitter scalars(segment, std::move(hooks), /*indexed=*/false);
      const std::string computed = scalars.scalar(scalar);
      FL_CHECK(scalars.takeCode().empty(), "code generation: ", name, ": scatter's src ",
               scalar->name(),
               " is computed by scalar ops; an indexed-write kernel takes a constant or a "
               "scalar input");
      body += "  const " + element + " fl_src = fl::to_element<" + element + ">(" +
              convertValue(computed, evaluationDtype(scalar->dtype()), dtype) + ");\n";
      value = "fl_src";
    }
    ElementIndex target = b;
    target[static_cast<size_t>(dim)] = "(index_t)fl_target";
    body += "  // 2. src written at each index position, at the index's value along axis " +
            str(dim) + ".\n";
    body += "  const long long fl_positions = " + product(idx, 0, rank) + ";\n";
    body += "  for (long long p = fl_first; p < fl_positions; p += fl_stride) {\n";
    body += decompose("p", idx, 0, rank, "b", "    ");
    body += "    const long long fl_target = (long long)" + idx + ".data[" +
            interface.offset(index, b) + "];\n";
    body += "    if (fl_target < 0 || fl_target >= (long long)" + out + ".size[" + str(dim) +
            "]) continue;\n";
    body += "    " + out + ".data[" + interface.offset(y, target, true) + "] = " + value + ";\n";
    body += "  }\n";
  } else {
    const auto* value = write->input(2)->as<TensorView>();
    FL_ASSERT(value != nullptr, "index_put_accumulate's values are a tensor");
    const std::string& val = interface.parameterName(value, false);
    // Element c of position i: value[i, c...] into output row index[i].
    ElementIndex source = coordinates("c", rank);
    source[0] = "(index_t)fl_i";
    ElementIndex target = coordinates("c", rank);
    target[0] = "(index_t)fl_target";
    body += "  // 2. each value row added to the output row its index names.\n";
    body += "  const long long fl_row = " + product(out, 1, rank) + ";\n";
    body += "  const long long fl_positions = (long long)" + idx + ".size[0] * fl_row;\n";
    body += "  for (long long p = fl_first; p < fl_positions; p += fl_stride) {\n";
    body += "    const long long fl_i = p / fl_row;\n";
    body += "    const long long fl_in_row = p - fl_i * fl_row;\n";
    body += decompose("fl_in_row", out, 1, rank, "c", "    ");
    body +=
        "    long long fl_target = (long long)" + idx + ".data[(index_t)fl_i * " + idx + "_s0];\n";
    body += "    if (fl_target < 0) fl_target += (long long)" + out + ".size[0];\n";
    body += "    if (fl_target < 0 || fl_target >= (long long)" + out + ".size[0]) continue;\n";
    const std::string loaded =
        "fl::load_value(" + val + ".data[" + interface.offset(value, source) + "])";
    if (inWorkspace) {
      body += "    atomicAdd(&fl_sums[fl_target * fl_row + fl_in_row], (" + workspaceType(dtype) +
              ")" + loaded + ");\n";
    } else {
      body += "    " +
              atomicAdd(dtype, out + ".data[" + interface.offset(y, target, true) + "]", loaded) +
              ";\n";
    }
    body += "  }\n";
    if (inWorkspace) {
      body += "  fl::red::grid_sync(fl_counters, gridDim.x, 2u);\n";
      body += "  // 3. the sums rounded to " + out + " once.\n";
      body += "  for (long long i = fl_first; i < fl_elements; i += fl_stride) {\n";
      body += decompose("i", out, 0, rank, "a", "    ");
      body += "    " + out + ".data[" + interface.offset(y, a, true) + "] = fl::to_element<" +
              element + ">(fl_sums[i]);\n";
      body += "  }\n";
    }
  }
  body += "  fl::red::grid_sync_reset(fl_counters, fl_counters + 1, gridDim.x);\n";

  std::string signature = interface.signature(kernel.name, /*workspace=*/true);
  const std::string global = "__global__ void ";
  const size_t at = signature.find(global);
  FL_ASSERT(at != std::string::npos, "unexpected kernel signature");
  signature.insert(at + global.size(),
                   "__launch_bounds__(" + str(threads) + ", " + str(kBlocksPerSm) + ") ");
  std::string source =
      kernelComment(kernel.name, "pointwise (indexed write)", segment, params.toString());
  source += "//\n// " + str(elements) + " elements copied, " + str(positions) + " " +
            (accumulate ? "values added" : "index positions written") + "; grid " +
            str(kernel.launch.grid[0]) + " blocks (at most " + str(kBlocksPerSm) +
            " an SM: every block resident for the grid barrier).\n";
  for (const std::string& note : interface.specialized())
    source += "// specialized: " + note + "\n";
  source += "#include \"fuserlab_device.cuh\"\n\n";
  source += reductionDeviceHelpers();
  source += "\n" + signature + " {\n" + kKernelEntry + body + "}\n";
  kernel.source = std::move(source);
  kernel.waitsForPriorGrids = true;
  return kernel;
}

}  // namespace fuserlab::codegen
