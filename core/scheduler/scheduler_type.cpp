#include "core/scheduler/scheduler_type.h"

#include <array>

namespace fuserlab::scheduler {
namespace {

constexpr std::array<std::pair<SchedulerType, std::string_view>, 9> kNames = {{
    {SchedulerType::NoOp, "no_op"},
    {SchedulerType::ExprEval, "expr_eval"},
    {SchedulerType::Matmul, "matmul"},
    {SchedulerType::Reduction, "reduction"},
    {SchedulerType::Transpose, "transpose"},
    {SchedulerType::Pointwise, "pointwise"},
    {SchedulerType::InnerPersistent, "inner_persistent"},
    {SchedulerType::OuterPersistent, "outer_persistent"},
    {SchedulerType::Communication, "communication"},
}};

}  // namespace

std::string_view toString(SchedulerType type) {
  for (const auto& [t, name] : kNames) {
    if (t == type) return name;
  }
  return "unknown";
}

std::optional<SchedulerType> parseSchedulerType(std::string_view name) {
  for (const auto& [type, n] : kNames) {
    if (n == name) return type;
  }
  return std::nullopt;
}

const std::vector<SchedulerType>& schedulerPriority() {
  // As nvFuser's all_heuristics_in_priority_order: the kernel-free
  // schedulers first (a segment they take costs no launch), then the
  // specialized kernels before the general ones that would also accept.
  static const std::vector<SchedulerType> order = {
      SchedulerType::ExprEval,        SchedulerType::NoOp,
      SchedulerType::Matmul,          SchedulerType::Reduction,
      SchedulerType::Transpose,       SchedulerType::Pointwise,
      SchedulerType::InnerPersistent, SchedulerType::OuterPersistent,
      SchedulerType::Communication,
  };
  return order;
}

bool launchesKernel(SchedulerType type) {
  return type != SchedulerType::NoOp && type != SchedulerType::ExprEval;
}

}  // namespace fuserlab::scheduler
