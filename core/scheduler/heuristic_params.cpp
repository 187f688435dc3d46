#include "core/scheduler/heuristic_params.h"

#include "core/ir/error.h"
#include "core/scheduler/params_fields.h"

namespace fuserlab::scheduler {

report::Json paramsToJson(const HeuristicParams& params) {
  return std::visit(
      [](const auto& p) -> report::Json {
        if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::monostate>) {
          return report::Json();
        } else {
          return p.toJson();
        }
      },
      params);
}

std::string paramsToString(const HeuristicParams& params) {
  return std::visit(
      [](const auto& p) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::monostate>) {
          return "no parameters\n";
        } else {
          return p.toString();
        }
      },
      params);
}

uint64_t paramsHash(const HeuristicParams& params) {
  return std::visit(
      [](const auto& p) -> uint64_t {
        if constexpr (std::is_same_v<std::decay_t<decltype(p)>, std::monostate>) {
          return ParamsHasher("none").value();
        } else {
          return p.hash();
        }
      },
      params);
}

std::string_view paramsKind(const HeuristicParams& params) {
  switch (params.index()) {
    case 1: return "pointwise";
    case 2: return "reduction";
    case 3: return "transpose";
    case 4: return "matmul";
    default: return "none";
  }
}

HeuristicParams paramsFromJson(SchedulerType type, const report::Json& json) {
  switch (type) {
    case SchedulerType::Pointwise: return PointwiseParams::fromJson(json);
    case SchedulerType::Reduction:
    case SchedulerType::InnerPersistent:
    case SchedulerType::OuterPersistent: return ReductionParams::fromJson(json);
    case SchedulerType::Transpose: return TransposeParams::fromJson(json);
    case SchedulerType::Matmul: return MatmulParams::fromJson(json);
    case SchedulerType::NoOp:
    case SchedulerType::ExprEval:
    case SchedulerType::Communication: break;
  }
  FL_CHECK(json.isNull(), toString(type), " takes no params; expected null, found a JSON ",
           json.typeName());
  return std::monostate{};
}

}  // namespace fuserlab::scheduler
