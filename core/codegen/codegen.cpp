#include "core/codegen/codegen.h"

#include <string>

#include "core/codegen/attention_emitter.h"
#include "core/codegen/pointwise_emitter.h"
#include "core/codegen/scan_emitter.h"
#include "core/codegen/scatter_emitter.h"
#include "core/codegen/sort_emitter.h"
#include "core/codegen/transpose_emitter.h"
#include "core/ir/error.h"
#include "core/scheduler/pointwise/own_kernel_ops.h"

#include "core/codegen/reduction/persistent_emitter.h"
#include "core/codegen/reduction/reduction_emitter.h"

namespace fuserlab::codegen {
namespace {

template <class Params>
const Params& paramsOf(const scheduler::HeuristicParams& params, scheduler::SchedulerType type) {
  const Params* typed = std::get_if<Params>(&params);
  FL_CHECK(typed != nullptr, "code generation: a ", scheduler::toString(type), " segment needs ",
           scheduler::toString(type), " parameters, got ", scheduler::paramsKind(params),
           " parameters");
  return *typed;
}

[[noreturn]] void notAvailable(scheduler::SchedulerType type) {
  FL_USER_ERROR("codegen for ", scheduler::toString(type), " segments is not available yet");
}

// Bytes a parameter takes in the kernel's parameter space (kernel.h's ABI):
// fl::Tensor<T, R> is a pointer and R sizes and strides; a scalar at most 8.
int64_t parameterBytes(const KernelParameter& parameter) {
  if (parameter.kind == KernelParameter::Kind::Scalar) return 8;
  return 8 + 16 * static_cast<int64_t>(parameter.rank);
}

void checkParameterBytes(int64_t bytes, size_t count, std::string_view kernelName) {
  FL_CHECK(bytes <= kMaxKernelParameterBytes, "code generation: kernel ", kernelName, " takes ",
           count, " parameters (", bytes, " bytes); a CUDA kernel takes at most ",
           kMaxKernelParameterBytes,
           " bytes of parameters. Give the fusion fewer inputs and outputs, or split it "
           "with fd.ops.segment_set");
}

// The parameters every kernel of `segment` takes (KernelInterface: one per
// segment input and output), checked before any code is emitted: emitting a
// kernel of thousands of inputs (a cat of 8,000) took a minute and 12 GB
// before this refusal (issue 43).
void checkSegmentParameters(const ir::Fusion& segment, std::string_view kernelName) {
  int64_t bytes = 0;
  auto add = [&bytes](const ir::Val* val) {
    const auto* tv = val->as<ir::TensorView>();
    KernelParameter parameter;
    if (tv != nullptr && !tv->isCpuScalar()) {
      parameter.kind = KernelParameter::Kind::Tensor;
      parameter.rank = static_cast<int>(tv->rank());
    } else {
      parameter.kind = KernelParameter::Kind::Scalar;
    }
    bytes += parameterBytes(parameter);
  };
  for (const ir::Val* input : segment.inputs()) add(input);
  const std::vector<ir::Val*> outputs = segment.outputVals();
  for (const ir::Val* output : outputs) add(output);
  checkParameterBytes(bytes, segment.inputs().size() + outputs.size(), kernelName);
}

// A kernel past kernelLimits() is refused here, before NVRTC sees it.
void checkKernelLimits(const GeneratedKernel& kernel, std::string_view kernelName) {
  int64_t bytes = kernel.workspaceBytes > 0 ? 8 : 0;
  for (const KernelParameter& parameter : kernel.parameters) bytes += parameterBytes(parameter);
  checkParameterBytes(bytes, kernel.parameters.size(), kernelName);
  const auto sourceBytes = static_cast<int64_t>(kernel.source.size());
  FL_CHECK(sourceBytes <= kMaxKernelSourceBytes, "code generation: kernel ", kernelName, " is ",
           sourceBytes, " bytes of CUDA source; FuserLab compiles at most ", kMaxKernelSourceBytes,
           " bytes per kernel (NVRTC's time and memory grow with "
           "it: minutes and gigabytes beyond). Split the fusion with fd.ops.segment_set");
}

GeneratedKernel emitKernel(const ir::Fusion& segment, scheduler::SchedulerType type,
                           const scheduler::HeuristicParams& params,
                           const scheduler::SegmentRuntimeInfo& info, std::string_view kernelName) {
  using scheduler::SchedulerType;
  switch (type) {
    case SchedulerType::Pointwise: {
      const scheduler::OwnKernelOps ops = scheduler::ownKernelOps(segment);
      if (ops.scan != nullptr) {
        return emitScanKernel(segment, paramsOf<scheduler::PointwiseParams>(params, type), info,
                              kernelName);
      }
      if (ops.indexedWrite != nullptr) {
        return emitIndexedWriteKernel(segment, paramsOf<scheduler::PointwiseParams>(params, type),
                                      info, kernelName);
      }
      if (ops.sort != nullptr) {
        return emitSortKernel(segment, paramsOf<scheduler::PointwiseParams>(params, type), info,
                              kernelName);
      }
      return emitPointwiseKernel(segment, paramsOf<scheduler::PointwiseParams>(params, type), info,
                                 kernelName);
    }
    case SchedulerType::Transpose:
      return emitTransposeKernel(segment, paramsOf<scheduler::TransposeParams>(params, type), info,
                                 kernelName);
    case SchedulerType::Reduction:
      return emitReductionKernel(segment, paramsOf<scheduler::ReductionParams>(params, type), info,
                                 kernelName);
    case SchedulerType::InnerPersistent:
    case SchedulerType::OuterPersistent:
      return emitPersistentKernel(segment, paramsOf<scheduler::ReductionParams>(params, type), info,
                                  kernelName);
    case SchedulerType::Matmul: {
      const auto& matmul = paramsOf<scheduler::MatmulParams>(params, type);
      FL_CHECK(matmul.backend == "attention_kernel",
               "code generation: this matmul "
               "segment is a cuBLASLt call (backend ",
               matmul.backend, "), not a generated kernel");
      return emitAttentionKernel(segment, info, kernelName);
    }
    default: notAvailable(type);
  }
}

}  // namespace

GeneratedKernel generateKernel(const ir::Fusion& segment, scheduler::SchedulerType type,
                               const scheduler::HeuristicParams& params,
                               const scheduler::SegmentRuntimeInfo& info,
                               std::string_view kernelName) {
  FL_CHECK(scheduler::launchesKernel(type), "code generation: a ", scheduler::toString(type),
           " segment launches no kernel (it runs on the host)");
  checkSegmentParameters(segment, kernelName);
  GeneratedKernel kernel = emitKernel(segment, type, params, info, kernelName);
  checkKernelLimits(kernel, kernelName);
  return kernel;
}

}  // namespace fuserlab::codegen
