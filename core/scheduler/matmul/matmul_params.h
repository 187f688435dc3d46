// MatmulParams: how a library-call segment runs. A matmul or linear with its
// fused epilogue goes to cuBLASLt as one call (backend "cublaslt"), whose
// algorithm cublasLtMatmulAlgoGetHeuristic picks at run time; an sdpfa_fwd
// runs as FuserLab's generated attention kernel (backend "attention_kernel").
#pragma once

#include <cstdint>
#include <string>

#include "core/report/json.h"

namespace fuserlab::scheduler {

struct MatmulParams {
  static constexpr int kSchemaVersion = 1;

  //! "cublaslt" or "attention_kernel".
  std::string backend = "cublaslt";
  //! cuBLASLt's epilogue: "none", "BIAS", "RELU", "RELU_BIAS", "GELU",
  //! "GELU_BIAS" (GELU is cuBLASLt's tanh approximation); "none" for the
  //! attention kernel.
  std::string epilogue = "none";
  //! The dtype the call writes ("BFloat16", "Half", "Float"): the fused
  //! final cast's target, else the op's own output dtype.
  std::string outputDtype = "Float";
  //! The algorithm: "heuristic" (cublasLtMatmulAlgoGetHeuristic's first
  //! answer, chosen when the call is planned) or "heuristic:N" (its N-th).
  std::string algo = "heuristic";

  std::string toString() const;
  report::Json toJson() const;
  static MatmulParams fromJson(const report::Json& json);
  uint64_t hash() const;
  bool operator==(const MatmulParams&) const = default;
};

//! The index of the heuristic answer `algo` names (0 for "heuristic");
//! -1 when it names none.
int heuristicIndex(const std::string& algo);

}  // namespace fuserlab::scheduler
