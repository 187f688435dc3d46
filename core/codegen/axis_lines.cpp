#include "core/codegen/axis_lines.h"

#include "core/ir/evaluator.h"

namespace fuserlab::codegen {

AxisLines axisLines(const ir::TensorView& tv, int64_t axis,
                    const scheduler::SegmentRuntimeInfo& info) {
  AxisLines out;
  out.axis = axis;
  const auto& axes = tv.logicalNoReductions();
  for (int64_t k = 0; k < static_cast<int64_t>(axes.size()); ++k) {
    const int64_t extent = info.evaluator->evaluateExtent(axes[static_cast<size_t>(k)]);
    out.extents.push_back(extent);
    if (k == axis) {
      out.length = extent;
      continue;
    }
    out.lines *= extent;
    if (out.outermost < 0) out.outermost = k;
  }
  return out;
}

std::string AxisLines::declarations(bool withAxis, const std::string& sizeOf) const {
  std::string src;
  for (int64_t k = 0; k < static_cast<int64_t>(extents.size()); ++k) {
    if (k == outermost || (k == axis && !withAxis)) continue;
    const std::string ks = std::to_string(k);
    src += "  constexpr index_t e" + ks + " = (index_t)" +
           std::to_string(extents[static_cast<size_t>(k)]) + "ll;";
    if (!sizeOf.empty()) src += "  // " + sizeOf + ".size[" + ks + "]";
    src += "\n";
  }
  return src + "  constexpr index_t lines = (index_t)" + std::to_string(lines) + "ll;\n";
}

std::string AxisLines::positionCode(int indent) const {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string src = pad + "index_t rest = line;\n";
  for (int64_t k = static_cast<int64_t>(extents.size()) - 1; k >= 0; --k) {
    if (k == axis) continue;
    const std::string ks = std::to_string(k);
    if (k == outermost) {
      src += pad + "const index_t a" + ks + " = rest;\n";
    } else {
      src += pad + "const index_t a" + ks + " = rest % e" + ks + "; rest /= e" + ks + ";\n";
    }
  }
  return src + pad + "(void)rest;\n";
}

}  // namespace fuserlab::codegen
