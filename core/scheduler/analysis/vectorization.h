// Vectorization analysis: the widest vectorized access (1, 2, 4, 8 or 16
// elements) that every input and output of a segment allows when the
// schedule walks a reference tensor's inner axes.
//
// A tensor allows a factor F when, along the reference's inner axes (those
// after the break point, innermost first), it has a contiguous run of memory
// whose length F divides; its data pointer, its strides outside that run and
// any slice/pad offset inside it are multiples of F elements; and F elements
// fit in a 16-byte access (or, where the query splits wide accesses, in 16
// bytes of the narrowest dtype and two accesses of the tensor's own). The
// run is traced from the reference to each tensor through reshape,
// permute, broadcast and expand (axis_trace.h). A
// tensor that is broadcast along the innermost reference axis (seed 001's
// weight and bias, broadcast or expanded from [1600] to [16, 128, 1600])
// does not move along it, so it is read without vectorization and does not
// limit the factor. The factor is shared by every vectorized tensor: the
// minimum of their limits. Every limit comes with the reason a user can act
// on ("T1: innermost contiguous extent 17 is odd").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/report/json.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

//! What one input or output allows.
struct TensorVectorization {
  std::string tensor;  //!< "T1"
  bool isInput = false;
  ir::DataType dtype = ir::DataType::Float;
  //! False when the tensor does not move along the reference's innermost
  //! axis (broadcast, expanded, stride 0, read through an index): it is read
  //! element by element and does not limit the factor.
  bool vectorized = true;
  //! Elements of the contiguous run along the reference's inner axes.
  int64_t innerExtent = 0;
  //! The largest factor this tensor allows (a power of two).
  int64_t limit = 1;
  //! A tensor read element by element that still limits the factor: it
  //! changes inside the reference's inner run (a per-channel scale over
  //! [N, C, H, W] changes every H * W elements), and a chunk crossing that
  //! boundary would read one value for lanes of two (`limit` is the largest
  //! chunk that never crosses it).
  bool limitsFactor = false;
  //! The tensor holds one value along the whole inner run (a [rows, 1] mean
  //! or rstd beside the rows it normalizes): it is read once per run, not by
  //! vectors, so its element size sets no vector width.
  bool constantAlongRun = false;
  //! Why `limit` is what it is, or why the tensor is not vectorized.
  std::string reason;

  report::Json toJson() const;
};

struct VectorizationAnalysis {
  //! The largest factor every vectorized tensor allows.
  int64_t factor = 1;
  std::string reference;  //!< the reference tensor's name
  int64_t breakPoint = 0;
  //! The first tensor whose limit is `factor`; empty if none limits it.
  std::string limitingTensor;
  //! Inputs, then outputs, in fusion order.
  std::vector<TensorVectorization> tensors;

  //! Bytes one vector of the widest vectorized dtype spans (more than 16:
  //! split into 16-byte accesses).
  int64_t bytesPerAccess() const;
  //! The limiting tensor's reason; empty if nothing limits the factor.
  std::string reason() const;
  //! The entry for `tensor` ("T1"); nullptr if it was not analysed.
  const TensorVectorization* find(const std::string& tensor) const;
  report::Json toJson() const;
};

struct VectorizationQuery {
  //! The tensor whose axes the schedule walks; default: the largest output.
  const ir::TensorView* reference = nullptr;
  //! Only the reference's axes from this position on (in its allocation
  //! order) are walked contiguously: the inner part of a 2-D schedule.
  int64_t breakPoint = 0;
  //! The tensors to analyse; default: every input and output.
  std::vector<const ir::TensorView*> tensors;
  //! The widest factor considered, in elements.
  int64_t maxFactor = 16;
  //! Whether a vector may take more than one 16-byte access. On, a vector
  //! holds 16 bytes of the narrowest analysed dtype and a wider tensor's
  //! vector takes up to two accesses (32 bytes): a bf16 kernel with a float
  //! bias moves 8 elements a vector, 16-byte bf16 accesses, where 16 bytes
  //! of float would hold every tensor to 4 (8-byte bf16 accesses). A 1-byte
  //! dtype counts as 2 there: a bool output beside bf16 keeps vectors of 8.
  //! Off, a vector is one access of each tensor's own dtype.
  bool splitWideAccesses = false;
};

//! Analyses `segment` at the sizes, strides and alignments of `info`.
VectorizationAnalysis analyzeVectorization(const ir::Fusion& segment,
                                           const SegmentRuntimeInfo& info,
                                           const VectorizationQuery& query = {});

}  // namespace fuserlab::scheduler
