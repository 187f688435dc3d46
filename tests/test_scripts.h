// FusionDefinition scripts that tests of several parts (scheduler, codegen)
// compile at their own sizes.
#pragma once

#include <cstdint>
#include <string>

namespace fuserlab::test_scripts {

//! A column sum: bf16 [rows, columns] summed over dim 0 (the suite's
//! col_sum).
inline constexpr const char* kColSum =
    "from nvfuser import FusionDefinition, DataType\n"
    "def f(fd : FusionDefinition) -> None :\n"
    "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
    "dtype=DataType.BFloat16, is_cpu=False)\n"
    "    T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
    "    T2 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)\n"
    "    fd.add_output(T2)\n";

//! A definition script around `body` (unindented lines, each ending in a
//! newline): the import and `def f(fd)`, the lines indented by 4.
inline std::string definition(const std::string& body) {
  std::string out =
      "from nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n";
  size_t at = 0;
  while (at < body.size()) {
    size_t end = body.find('\n', at);
    if (end == std::string::npos) end = body.size();
    out += "    " + body.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

//! The body (unindented lines) of a normalization backward as Thunder
//! writes it, with the weight gradients: dx from two row sums (LayerNorm)
//! or one (RMSNorm, `layerNorm` false), and dw (and for LayerNorm db) as
//! column sums over every row, cast to `dtype` ("BFloat16", "Float").
//! Inputs: dy and x [rows, cols], then LayerNorm's mean and rstd or
//! RMSNorm's rstd as [rows, 1] floats, then the weight [cols].
inline std::string normBackwardWithWeights(int64_t rows, int64_t cols, bool layerNorm,
                                           const std::string& dtype = "BFloat16") {
  const std::string full = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  const std::string scale = "S9 = fd.define_scalar(" +
                            std::to_string(1.0 / static_cast<double>(cols)) +
                            ", dtype=DataType.Double)\n";
  auto tensor = [&](const std::string& name, const std::string& type, int rank) {
    return name + " = fd.define_tensor(shape=" + (rank == 2 ? "[-1, -1]" : "[-1]") +
           ", contiguity=" + (rank == 2 ? "[True, True]" : "[True]") + ", dtype=DataType." + type +
           ", is_cpu=False)\n";
  };
  auto bcast = [&](const std::string& out, const std::string& in, const std::string& dims) {
    return out + " = fd.ops.broadcast_in_dim(" + in + ", shape=" + full +
           ", broadcast_dims=" + dims + ")\n";
  };
  std::string s = tensor("T0", dtype, 2) + tensor("T1", dtype, 2);
  if (layerNorm) {
    s += tensor("T2", "Float", 2) + tensor("T3", "Float", 2) + tensor("T4", dtype, 1);
    s += "T5 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "T6 = fd.ops.cast(T1, dtype=DataType.Float)\n" +
         bcast("T7", "T2", "[0, 1]") + bcast("T8", "T3", "[0, 1]") +
         "T10 = fd.ops.mul(fd.ops.sub(T6, T7), T8)\n" + bcast("T11", "T4", "[1]") +
         "T13 = fd.ops.mul(T5, fd.ops.cast(T11, dtype=DataType.Float))\n"
         "T14 = fd.ops.sum(T13, dims=[1], keepdim=False, dtype=DataType.Null)\n"
         "T16 = fd.ops.sum(fd.ops.mul(T13, T10), dims=[1], keepdim=False, dtype=DataType.Null)\n" +
         scale + bcast("T20", "fd.ops.mul(T14, S9)", "[0]") +
         bcast("T21", "fd.ops.mul(T16, S9)", "[0]") +
         "T24 = fd.ops.sub(fd.ops.sub(T13, T20), fd.ops.mul(T10, T21))\n"
         "T25 = fd.ops.cast(fd.ops.mul(T24, T8), dtype=DataType." +
         dtype +
         ")\n"
         "T26 = fd.ops.sum(fd.ops.mul(T5, T10), dims=[0], keepdim=False, dtype=DataType.Null)\n"
         "T27 = fd.ops.sum(T5, dims=[0], keepdim=False, dtype=DataType.Null)\n"
         "fd.add_output(T25)\n"
         "fd.add_output(fd.ops.cast(T26, dtype=DataType." +
         dtype +
         "))\n"
         "fd.add_output(fd.ops.cast(T27, dtype=DataType." +
         dtype + "))\n";
    return s;
  }
  s += tensor("T2", "Float", 2) + tensor("T3", dtype, 1);
  s += "T4 = fd.ops.cast(T0, dtype=DataType.Float)\n"
       "T5 = fd.ops.cast(T1, dtype=DataType.Float)\n" +
       bcast("T6", "T3", "[1]") +
       "T8 = fd.ops.mul(T4, fd.ops.cast(T6, dtype=DataType.Float))\n"
       "T10 = fd.ops.sum(fd.ops.mul(T8, T5), dims=[1], keepdim=False, dtype=DataType.Null)\n" +
       scale + bcast("T13", "fd.ops.mul(T10, S9)", "[0]") + bcast("T14", "T2", "[0, 1]") +
       "T17 = fd.ops.mul(T5, fd.ops.mul(fd.ops.mul(T14, T14), T14))\n"
       "T20 = fd.ops.sub(fd.ops.mul(T8, T14), fd.ops.mul(T17, T13))\n"
       "T24 = fd.ops.sum(fd.ops.mul(T4, fd.ops.mul(T5, T14)), dims=[0], keepdim=False, "
       "dtype=DataType.Null)\n"
       "fd.add_output(fd.ops.cast(T20, dtype=DataType." +
       dtype +
       "))\n"
       "fd.add_output(fd.ops.cast(T24, dtype=DataType." +
       dtype + "))\n";
  return s;
}

}  // namespace fuserlab::test_scripts
