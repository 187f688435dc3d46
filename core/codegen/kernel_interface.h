// KernelInterface: what a generated kernel receives and how its code names
// it, shared by the emitters. Parameters follow kernel.h's ABI: the segment's
// inputs in order (tensors as fl::Tensor<T, R>, scalars and 0-dim CPU scalar
// tensors (is_cpu=True) by value, as nvFuser passes them), then its tensor
// outputs in order. Sizes and strides are read from the tensor
// parameters at run time, but for the inputs' strides:
//   - each tensor's strides become locals `<T>_s<axis>` of the index type,
//     0 on axes of size 1 (a size-1 axis is never walked, whatever stride
//     the caller passes). A tensor input's are constants, from the layout
//     `info` describes: the executor builds a kernel per input layout, and
//     constant strides fold the index arithmetic and the vector checks
//     (the define_tensor_sizes_strides kernel: 496 -> 392 instructions);
//     KernelParameter::builtInStrides records them;
//   - a symbolic extent of any tensor parameter's axis is `<T>.size[axis]`,
//     a scalar input is its parameter; a symbolic scalar that is neither is
//     specialized to the value `info` binds (and the source says so).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/codegen/expression_emitter.h"
#include "core/codegen/kernel.h"
#include "core/ir/fusion.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::codegen {

class KernelInterface {
 public:
  KernelInterface(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info,
                  bool int64Indexing);

  const std::vector<KernelParameter>& parameters() const { return parameters_; }
  bool int64Indexing() const { return int64Indexing_; }
  //! "int32_t" or "int64_t".
  std::string_view indexType() const;

  //! `extern "C" __global__ void name(fl::Tensor<float, 2> T0, ...)`.
  std::string signature(std::string_view name, bool workspace = false) const;
  //! `typedef ... index_t;` and the stride locals of every tensor parameter.
  std::string prologue(int indent) const;

  //! The parameter name of a tensor input or output ("T3"; "T3_out" for an
  //! output that is also an input).
  const std::string& parameterName(const ir::TensorView* tv, bool output) const;
  //! The value of a 0-dim CPU scalar tensor input, passed by value (its
  //! parameter's name); nullopt for any other tensor.
  std::optional<std::string> cpuScalarValue(const ir::TensorView* tv) const;
  //! Whether `tv` is an input / output parameter.
  bool isInputParameter(const ir::TensorView* tv) const;
  bool isOutputParameter(const ir::TensorView* tv) const;

  //! The element offset of `tv` (a parameter) at `index`, in index_t:
  //! "(index_t)(a0) * T0_s0 + ..." ("0" for a 0-dim tensor).
  std::string offset(const ir::TensorView* tv, const ElementIndex& index,
                     bool output = false) const;
  //! The hook for ExpressionHooks::symbolicScalar.
  std::string symbolicScalar(const ir::Scalar* scalar) const;
  //! Symbolic scalars that had to be specialized to their bound value.
  const std::vector<std::string>& specialized() const { return specialized_; }

 private:
  struct TensorParameter {
    const ir::TensorView* tv = nullptr;
    bool output = false;
    std::string name;
    size_t parameter = 0;  //!< its index in parameters_
  };
  const TensorParameter* find(const ir::TensorView* tv, bool output) const;

  const scheduler::SegmentRuntimeInfo& info_;
  bool int64Indexing_;
  std::vector<KernelParameter> parameters_;
  std::vector<TensorParameter> tensors_;
  //! 0-dim CPU scalar tensor inputs and their by-value parameters.
  std::vector<std::pair<const ir::TensorView*, std::string>> cpuScalars_;
  //! Symbolic scalar -> C++ expression (lookup only).
  std::unordered_map<const ir::Scalar*, std::string> scalars_;
  mutable std::vector<std::string> specialized_;
};

//! The comment block opening a kernel: its name, the segment's exprs (one
//! per line, with the segment's names) and the params' dump.
std::string kernelComment(std::string_view name, std::string_view scheduler,
                          const ir::Fusion& segment, const std::string& paramsText);

}  // namespace fuserlab::codegen
