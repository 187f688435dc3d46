// How the differential tester's generator writes a fusion's pieces as
// Python: a dtype as nvFuser's DataType and as torch's, sizes as a list
// (`new_shape=[2, 3]`) and as a tuple (`torch.randn((2, 3), ...)`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/difftest/fusion_generator.h"

namespace fuserlab::difftest::script_text {

inline const char* dataType(Dtype d) {
  switch (d) {
    case Dtype::Float: return "DataType.Float";
    case Dtype::Half: return "DataType.Half";
    case Dtype::BFloat16: return "DataType.BFloat16";
    case Dtype::Double: return "DataType.Double";
    case Dtype::Int: return "DataType.Int";
    case Dtype::Int32: return "DataType.Int32";
    case Dtype::Bool: return "DataType.Bool";
  }
  return "?";
}

inline const char* torchType(Dtype d) {
  switch (d) {
    case Dtype::Float: return "torch.float32";
    case Dtype::Half: return "torch.float16";
    case Dtype::BFloat16: return "torch.bfloat16";
    case Dtype::Double: return "torch.float64";
    case Dtype::Int: return "torch.int64";
    case Dtype::Int32: return "torch.int32";
    case Dtype::Bool: return "torch.bool";
  }
  return "?";
}

inline std::string list(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

inline std::string tuple(const std::vector<int64_t>& values) {
  std::string out = "(";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + (values.size() == 1 ? ",)" : ")");
}

}  // namespace fuserlab::difftest::script_text
