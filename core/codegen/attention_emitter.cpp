#include "core/codegen/attention_emitter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/codegen/attention_flash.h"
#include "core/codegen/kernel_interface.h"
#include "core/ir/error.h"
#include "core/ir/tensor_view.h"
#include "core/scheduler/matmul/attention_choice.h"

namespace fuserlab::codegen {
namespace {

constexpr int64_t kThreads = 128;

std::string attentionElementType(ir::DataType dtype) {
  switch (dtype) {
    case ir::DataType::Half: return "fl::half";
    case ir::DataType::BFloat16: return "fl::bfloat16";
    case ir::DataType::Float: return "float";
    case ir::DataType::Double: return "double";
    default:
      FL_USER_ERROR("the attention kernel reads floating-point tensors, not ", ir::toString(dtype));
  }
}

// The expression storing float `value` as `dtype`.
std::string storeExpr(ir::DataType dtype, const std::string& value) {
  switch (dtype) {
    case ir::DataType::Half: return "fl::float_to_half(" + value + ")";
    case ir::DataType::BFloat16: return "fl::float_to_bf16(" + value + ")";
    case ir::DataType::Double: return "(double)(" + value + ")";
    default: return value;
  }
}

}  // namespace

GeneratedKernel emitAttentionKernel(const ir::Fusion& segment,
                                    const scheduler::SegmentRuntimeInfo& info,
                                    std::string_view kernelName) {
  const ir::Expr* sdpa = nullptr;
  for (const ir::Expr* expr : segment.exprsForOutputs()) {
    if (expr->type() == ir::ExprType::Sdpa) sdpa = expr;
  }
  FL_CHECK(sdpa != nullptr, "the attention kernel needs an sdpfa_fwd segment");
  FL_ASSERT(info.evaluator != nullptr, "the attention kernel needs bound sizes");
  const ir::ExpressionEvaluator& evaluator = *info.evaluator;
  const auto* q = sdpa->input(0)->as<ir::TensorView>();
  const auto* k = sdpa->input(1)->as<ir::TensorView>();
  const auto* v = sdpa->input(2)->as<ir::TensorView>();
  const auto scalar = [&](size_t i) -> const ir::Scalar* {
    return sdpa->inputs().size() > i ? sdpa->input(i)->as<ir::Scalar>() : nullptr;
  };
  const double dropout =
      scalar(3) ? evaluator.evaluateDouble(scalar(3), "sdpfa_fwd dropout_p") : 0.0;
  FL_CHECK(dropout == 0.0,
           "sdpfa_fwd: the attention kernel runs without dropout; "
           "dropout_p is ",
           dropout);
  const bool causal = scalar(4) && evaluator.evaluateBool(scalar(4), "sdpfa_fwd is_causal");
  const int64_t depth = evaluator.evaluateExtent(q->logicalNoReductions()[3]);
  const int64_t keys = evaluator.evaluateExtent(k->logicalNoReductions()[2]);
  double scale = scalar(5) ? evaluator.evaluateDouble(scalar(5), "sdpfa_fwd scale")
                           : std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(scale)) scale = 1.0 / std::sqrt(static_cast<double>(depth));

  const int64_t valueDepth = evaluator.evaluateExtent(v->logicalNoReductions()[3]);
  const int64_t sharedLimit = info.device != nullptr
                                  ? std::max(info.device->sharedMemoryPerBlockOptinBytes,
                                             info.device->sharedMemoryPerBlockBytes)
                                  : 48 * 1024;
  // Tensor cores where the scheduler's choice allows (the report says why
  // not); the one-row kernel otherwise.
  const bool tensorCores = !scheduler::tiledAttentionRefusal(
                               q->dtype(), k->dtype(), v->dtype(), depth, valueDepth,
                               info.device != nullptr ? info.device->computeCapability() : 80) &&
                           flashAttentionSharedBytes(depth) <= sharedLimit &&
                           std::max(keys, evaluator.evaluateExtent(q->logicalNoReductions()[2])) <
                               int64_t{1} << 30;  // the tiled kernel's row indices are 32-bit
  const int64_t sharedBytes =
      tensorCores ? flashAttentionSharedBytes(depth) : std::max<int64_t>(keys, 1) * 4 + 2 * 32 * 4;
  FL_CHECK(sharedBytes <= sharedLimit,
           "sdpfa_fwd: the attention kernel keeps a row "
           "of ",
           keys, " scores in shared memory (", sharedBytes, " bytes), more than the device's ",
           sharedLimit);

  KernelInterface interface(segment, info, /*int64Indexing=*/true);
  const auto* out = sdpa->output(0)->as<ir::TensorView>();
  const auto* lse = sdpa->output(1)->as<ir::TensorView>();
  const auto name = [&](const ir::TensorView* tv, bool output) {
    return interface.parameterName(tv, output);
  };
  const std::string Q = name(q, false), K = name(k, false), V = name(v, false);
  const std::string qT = attentionElementType(q->dtype());
  const int64_t batch = evaluator.evaluateExtent(q->logicalNoReductions()[0]);
  const int64_t heads = evaluator.evaluateExtent(q->logicalNoReductions()[1]);
  const int64_t queries = evaluator.evaluateExtent(q->logicalNoReductions()[2]);
  FL_CHECK(batch > 0 && heads > 0 && queries > 0,
           "sdpfa_fwd: the attention kernel "
           "needs non-empty q, got batch ",
           batch, ", heads ", heads, ", queries ", queries);
  FL_CHECK(heads <= 65535 && batch <= 65535,
           "sdpfa_fwd: the attention kernel takes "
           "at most 65535 heads and batches (grid y and z), got ",
           heads, " and ", batch);
  // No dropout, so no random state: seed and offset are 0, written by the
  // first block's thread 0 (blockIdx.x, h and b are the kernels' names).
  const auto randomStateOutputs = [&] {
    std::string text;
    for (size_t o = 2; o < sdpa->outputs().size(); ++o) {
      const auto* tv = sdpa->output(o)->as<ir::TensorView>();
      if (tv == nullptr || !interface.isOutputParameter(tv)) continue;
      text += "  if (threadIdx.x == 0 && blockIdx.x == 0 && h == 0 && b == 0) " + name(tv, true) +
              ".data[0] = 0;\n";
    }
    return text;
  };
  const auto finish = [&](std::string source, std::array<int64_t, 3> grid, int64_t threads) {
    GeneratedKernel kernel;
    kernel.name = std::string(kernelName);
    kernel.source = std::move(source);
    kernel.waitsForPriorGrids = true;
    kernel.parameters = interface.parameters();
    kernel.int64Indexing = true;
    kernel.launch.grid = grid;
    kernel.launch.block = {threads, 1, 1};
    kernel.launch.dynamicSharedMemoryBytes = sharedBytes;
    return kernel;
  };
  if (tensorCores) {
    FlashAttentionShape shape;
    shape.dtype = q->dtype();
    shape.depth = depth;
    shape.causal = causal;
    shape.scale = scale;
    FlashAttentionNames names;
    names.q = Q;
    names.k = K;
    names.v = V;
    if (interface.isOutputParameter(out)) {
      names.out = name(out, true);
      names.storeOut = storeExpr(out->dtype(), "value");
    }
    if (interface.isOutputParameter(lse)) {
      names.lse = name(lse, true);
      names.storeLse = storeExpr(lse->dtype(), "value");
    }
    std::string signature = interface.signature(kernelName);
    const std::string global = "__global__ void ";
    signature.insert(signature.find(global) + global.size(),
                     "__launch_bounds__(" + std::to_string(kFlashThreads) + ") ");
    std::ostringstream src;
    src << "#include \"fuserlab_device.cuh\"\n\n"
        << "// sdpfa_fwd on tensor cores: blocks of " << kFlashBlockRows
        << " query rows of one (batch, head), key tiles of " << kFlashBlockKeys
        << ", online softmax; causal=" << (causal ? "true" : "false") << ", scale=" << scale
        << ", head dimension " << depth << ".\n"
        << signature << flashAttentionBody(shape, names) << randomStateOutputs() << "}\n";
    return finish(src.str(), {(queries + kFlashBlockRows - 1) / kFlashBlockRows, heads, batch},
                  kFlashThreads);
  }

  std::ostringstream src;
  src << "#include \"fuserlab_device.cuh\"\n\n"
      << "// sdpfa_fwd: one block per (query row, head, batch); causal="
      << (causal ? "true" : "false") << ", scale=" << scale << ".\n"
      << interface.signature(kernelName) << " {\n"
      << kKernelEntry << "  extern __shared__ float fl_scores[];\n"
      << "  float* fl_partial = fl_scores + " << std::max<int64_t>(keys, 1) << ";\n"
      << "  const int64_t i = blockIdx.x, h = blockIdx.y, b = blockIdx.z;\n"
      << "  const int64_t E = " << Q << ".size[3];\n"
      << "  const int64_t S = " << K << ".size[2], Ev = " << V << ".size[3];\n"
      << "  const int64_t visible = " << (causal ? "(i + 1 < S ? i + 1 : S)" : "S") << ";\n"
      << "  const " << qT << "* qrow = " << Q << ".data + b * " << Q << ".stride[0] + h * " << Q
      << ".stride[1] + i * " << Q << ".stride[2];\n"
      << "  const " << qT << "* kh = " << K << ".data + b * " << K << ".stride[0] + h * " << K
      << ".stride[1];\n"
      << "  const " << qT << "* vh = " << V << ".data + b * " << V << ".stride[0] + h * " << V
      << ".stride[1];\n"
      << "  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;\n"
      << "  const int warps = (blockDim.x + 31) / 32;\n"
      << "  // Scores and their maximum.\n"
      << "  const float kMinusInf = -__int_as_float(0x7f800000);\n"
      << "  float local = kMinusInf;\n"
      << "  for (int64_t j = threadIdx.x; j < visible; j += blockDim.x) {\n"
      << "    float dot = 0.0f;\n"
      << "    for (int64_t e = 0; e < E; ++e) {\n"
      << "      dot += fl::load_value(qrow[e * " << Q << ".stride[3]]) *\n"
      << "             fl::load_value(kh[j * " << K << ".stride[2] + e * " << K << ".stride[3]]);\n"
      << "    }\n"
      << "    const float s = dot * " << floatLiteral(scale) << ";\n"
      << "    fl_scores[j] = s;\n"
      << "    local = fmaxf(local, s);\n"
      << "  }\n"
      << "  for (int o = 16; o > 0; o /= 2) local = fmaxf(local, __shfl_xor_sync(0xffffffffu, "
         "local, o));\n"
      << "  if (lane == 0) fl_partial[warp] = local;\n"
      << "  __syncthreads();\n"
      << "  float rowMax = kMinusInf;\n"
      << "  for (int w = 0; w < warps; ++w) rowMax = fmaxf(rowMax, fl_partial[w]);\n"
      << "  // Softmax numerators and their sum.\n"
      << "  float sum = 0.0f;\n"
      << "  for (int64_t j = threadIdx.x; j < visible; j += blockDim.x) {\n"
      << "    const float p = expf(fl_scores[j] - rowMax);\n"
      << "    fl_scores[j] = p;\n"
      << "    sum += p;\n"
      << "  }\n"
      << "  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);\n"
      << "  if (lane == 0) fl_partial[32 + warp] = sum;\n"
      << "  __syncthreads();\n"
      << "  float total = 0.0f;\n"
      << "  for (int w = 0; w < warps; ++w) total += fl_partial[32 + w];\n"
      << "  // The weighted sum of v, one output element per thread.\n"
      << "  for (int64_t e = threadIdx.x; e < Ev; e += blockDim.x) {\n"
      << "    float acc = 0.0f;\n"
      << "    for (int64_t j = 0; j < visible; ++j) {\n"
      << "      acc += fl_scores[j] * fl::load_value(vh[j * " << V << ".stride[2] + e * " << V
      << ".stride[3]]);\n"
      << "    }\n"
      << "    const float value = visible > 0 ? acc / total : 0.0f;\n";
  const std::string O = name(out, true);
  if (interface.isOutputParameter(out)) {
    src << "    " << O << ".data[b * " << O << ".stride[0] + h * " << O << ".stride[1] + i * " << O
        << ".stride[2] + e * " << O << ".stride[3]] = " << storeExpr(out->dtype(), "value")
        << ";\n";
  }
  src << "  }\n";
  if (interface.isOutputParameter(lse)) {
    const std::string LSE = name(lse, true);
    src << "  if (threadIdx.x == 0) {\n"
        << "    " << LSE << ".data[b * " << LSE << ".stride[0] + h * " << LSE << ".stride[1] + i * "
        << LSE << ".stride[2]] = "
        << storeExpr(lse->dtype(), "visible > 0 ? rowMax + logf(total) : kMinusInf") << ";\n"
        << "  }\n";
  }
  src << randomStateOutputs() << "}\n";
  return finish(src.str(), {queries, heads, batch}, kThreads);
}

}  // namespace fuserlab::codegen
