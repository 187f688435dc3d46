#include "core/frontend/inputs_block_writer.h"

#include "core/frontend/python_literals.h"
#include "core/ir/error.h"

namespace fuserlab::frontend {
namespace {

using runtime::TensorInitializer;

std::string torchDtype(ir::DataType dtype) {
  switch (dtype) {
    case ir::DataType::Bool: return "torch.bool";
    case ir::DataType::Int32: return "torch.int32";
    case ir::DataType::Int: return "torch.int64";
    case ir::DataType::Half: return "torch.float16";
    case ir::DataType::BFloat16: return "torch.bfloat16";
    case ir::DataType::Float: return "torch.float32";
    case ir::DataType::Double: return "torch.float64";
    case ir::DataType::Null: break;
  }
  FL_ASSERT(false, "an input spec without a dtype");
}

std::string number(double value) { return doubleLiteral(value); }

// A Python tuple: `(4, 8)`, `(4,)`, `()`.
std::string tuple(const std::vector<int64_t>& values) {
  std::string out = "(";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out + (values.size() == 1 ? ",)" : ")");
}

std::string constructor(const InputSpec& spec) {
  const std::string size = tuple(spec.sizes);
  const std::string common = "dtype=" + torchDtype(spec.dtype) + ", device='" + spec.device + "'";
  const TensorInitializer& init = spec.initializer;
  switch (init.kind) {
    case TensorInitializer::Kind::Randn: return "torch.randn(" + size + ", " + common + ")";
    case TensorInitializer::Kind::Rand: return "torch.rand(" + size + ", " + common + ")";
    case TensorInitializer::Kind::Ones: return "torch.ones(" + size + ", " + common + ")";
    case TensorInitializer::Kind::Zeros: return "torch.zeros(" + size + ", " + common + ")";
    case TensorInitializer::Kind::Randint:
      return "torch.randint(" + std::to_string(static_cast<int64_t>(init.low.value_or(0))) + ", " +
             std::to_string(static_cast<int64_t>(init.high.value_or(1))) + ", " + size + ", " +
             common + ")";
    case TensorInitializer::Kind::Full:
      return "torch.full(" + size + ", " + number(init.value.value_or(0)) + ", " + common + ")";
    case TensorInitializer::Kind::MakeTensor:
    case TensorInitializer::Kind::Arange:
    case TensorInitializer::Kind::Values: {
      std::string out = "torch.testing.make_tensor(" + size + ", " + common;
      if (init.kind == TensorInitializer::Kind::MakeTensor) {
        if (init.low) out += ", low=" + number(*init.low);
        if (init.high) out += ", high=" + number(*init.high);
      }
      return out + ")";
    }
  }
  FL_ASSERT(false, "unknown initializer");
}

}  // namespace

std::string writeInputSpec(const InputSpec& spec) {
  if (spec.isScalar) return scalarLiteral(spec.scalar);
  std::string out = constructor(spec);
  if (spec.stridedSizes && spec.stridedStrides) {
    out += ".as_strided(" + tuple(*spec.stridedSizes) + ", " + tuple(*spec.stridedStrides);
    if (spec.stridedOffset != 0) out += ", " + std::to_string(spec.stridedOffset);
    out += ")";
  }
  const auto kind = spec.initializer.kind;
  if (kind == TensorInitializer::Kind::Arange || kind == TensorInitializer::Kind::Values) {
    out += ",  # was " + spec.initializer.toString() + ": written as make_tensor";
    return out;
  }
  return out;
}

std::string writeInputsBlock(const std::vector<InputSpec>& specs) {
  std::string out = "inputs = [\n";
  for (const InputSpec& spec : specs) {
    std::string entry = writeInputSpec(spec);
    // A trailing comment already follows its comma.
    if (entry.find(",  # ") == std::string::npos) entry += ",";
    out += "    " + entry + "\n";
  }
  return out + "]\n";
}

}  // namespace fuserlab::frontend
