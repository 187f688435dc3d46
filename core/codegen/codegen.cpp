#include "core/codegen/codegen.h"

#include <string>

#include "core/codegen/attention_emitter.h"
#include "core/codegen/pointwise_emitter.h"
#include "core/codegen/transpose_emitter.h"
#include "core/ir/error.h"

#ifdef FUSERLAB_HAS_REDUCTION_EMITTER
#include "core/codegen/reduction_emitter.h"
#endif
#ifdef FUSERLAB_HAS_PERSISTENT_EMITTER
#include "core/codegen/persistent_emitter.h"
#endif

namespace fuserlab::codegen {
namespace {

template <class Params>
const Params& paramsOf(const scheduler::HeuristicParams& params,
                       scheduler::SchedulerType type) {
  const Params* typed = std::get_if<Params>(&params);
  FL_CHECK(typed != nullptr, "code generation: a ", scheduler::toString(type),
           " segment needs ", scheduler::toString(type), " parameters, got ",
           scheduler::paramsKind(params), " parameters");
  return *typed;
}

[[noreturn]] void notAvailable(scheduler::SchedulerType type) {
  FL_USER_ERROR("codegen for ", scheduler::toString(type),
                " segments is not available yet");
}

}  // namespace

GeneratedKernel generateKernel(const ir::Fusion& segment,
                               scheduler::SchedulerType type,
                               const scheduler::HeuristicParams& params,
                               const scheduler::SegmentRuntimeInfo& info,
                               std::string_view kernelName) {
  using scheduler::SchedulerType;
  FL_CHECK(scheduler::launchesKernel(type), "code generation: a ",
           scheduler::toString(type),
           " segment launches no kernel (it runs on the host)");
  switch (type) {
    case SchedulerType::Pointwise:
      return emitPointwiseKernel(
          segment, paramsOf<scheduler::PointwiseParams>(params, type), info,
          kernelName);
    case SchedulerType::Transpose:
      return emitTransposeKernel(
          segment, paramsOf<scheduler::TransposeParams>(params, type), info,
          kernelName);
    case SchedulerType::Reduction:
#ifdef FUSERLAB_HAS_REDUCTION_EMITTER
      return emitReductionKernel(
          segment, paramsOf<scheduler::ReductionParams>(params, type), info,
          kernelName);
#else
      notAvailable(type);
#endif
    case SchedulerType::InnerPersistent:
    case SchedulerType::OuterPersistent:
#ifdef FUSERLAB_HAS_PERSISTENT_EMITTER
      return emitPersistentKernel(
          segment, paramsOf<scheduler::ReductionParams>(params, type), info,
          kernelName);
#else
      notAvailable(type);
#endif
    case SchedulerType::Matmul: {
      const auto& matmul = paramsOf<scheduler::MatmulParams>(params, type);
      FL_CHECK(matmul.backend == "attention_kernel", "code generation: this matmul "
               "segment is a cuBLASLt call (backend ", matmul.backend,
               "), not a generated kernel");
      return emitAttentionKernel(segment, info, kernelName);
    }
    default:
      notAvailable(type);
  }
}

}  // namespace fuserlab::codegen
