// ReductionPlan: the order in which a reduction-family kernel computes a
// segment. The kernel makes passes ("phases") over each row's elements; a
// reduction accumulates in the phase where its input first becomes
// computable, and its result (one value per row, held in registers) is
// available from the next phase on. Everything else is classified as
//   - per-row: does not vary along the row (reduction results, and what is
//     computed from them and from inputs broadcast along the row): computed
//     once per row between phases, into registers;
//   - per-element: computed inside a phase, from the row's elements;
//   - per-column (inner persistent kernels with column sums, the combined
//     normalization backward): a column sum over every row (dw, db) and
//     what is computed from such sums alone, computed once per column
//     after every row is done.
// A tensor's `available` phase is the first phase (or, for per-row values,
// the first row stage before that phase) where it can be computed.
//
// Persistent kernels keep `stored` tensors resident between phases
// (registers or shared memory) and read them back instead of recomputing
// them: the persistent buffers, or with projection the segment inputs they
// are recomputed from. Any other tensor a phase needs is recomputed from
// those, from per-row values and from global memory. Welford in a
// persistent kernel is two sums, as the CPU reference computes it: the
// mean, then the squared deviations from it in the next phase.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/codegen/reduction/reduction_emitter_layout.h"
#include "core/ir/fusion.h"
#include "core/scheduler/analysis/reduction_pattern.h"

namespace fuserlab::codegen {

//! One accumulation a phase performs.
struct ReductionStep {
  enum class Kind : uint8_t {
    Reduce,       //!< sum / prod / max / min of `input`
    Welford,      //!< one-pass Welford (mean, m2, count)
    WelfordMean,  //!< two-pass Welford, first pass: sum of `input`
    WelfordM2,    //!< second pass: sum of (input - mean)^2
  };
  const ir::Expr* expr = nullptr;
  Kind kind = Kind::Reduce;
  const ir::TensorView* input = nullptr;
  int phase = 0;
  //! The accumulator's dtype: Float, Double or Int, as the reference's.
  ir::DataType compute = ir::DataType::Float;
  //! Variable prefix, from the first output's name ("T4").
  std::string name;
};

struct TensorRole {
  int available = 0;
  bool perRow = false;
  //! A segment input or a reduction output: the kernel provides its value.
  bool provided = false;
  bool stored = false;
  //! Computed from row gather `gather` (ReductionPlan::gathers): a per-row
  //! value only the thread that owns the gathered element holds; -1 if none.
  int gather = -1;
  //! A column sum or computed from column sums alone (ReductionPlan::
  //! columnSteps): one value per element index, after every row.
  bool perColumn = false;
};

//! A row gather (scheduler::RowGather) an inner persistent kernel computes
//! in a phase: the thread whose element of `source` sits at column
//! index[r] (clamped to the row) keeps it as the row's `output`.
struct GatherStep {
  const ir::Expr* expr = nullptr;
  const ir::TensorView* source = nullptr;
  const ir::TensorView* index = nullptr;   //!< a per-row value
  const ir::TensorView* output = nullptr;  //!< a provided per-row value
  int64_t dim = 0;                         //!< the source's gathered axis
  int phase = 0;                           //!< the pass that computes the source's elements
};

struct ReductionPlan {
  std::vector<ReductionStep> steps;
  //! Row gathers, in topological order (inner persistent kernels only).
  std::vector<GatherStep> gathers;
  int phaseCount = 0;  //!< passes over the elements
  //! Tensors in topological order (inputs first), with their roles.
  std::vector<const ir::TensorView*> tensors;
  //! Kept resident by persistent kernels, in `tensors` order.
  std::vector<const ir::TensorView*> stored;
  //! Per-row tensors the kernel computes (not inputs, not reduction
  //! outputs), in `tensors` order.
  std::vector<const ir::TensorView*> perRowComputed;
  //! Per-row segment inputs, loaded once per row.
  std::vector<const ir::TensorView*> perRowInputs;

  //! One output parameter of the kernel.
  struct Output {
    const ir::TensorView* tv = nullptr;
    int index = 0;  //!< segment output position
    //! Written inside a phase (the tensor moves along the row) or once per
    //! row (it does not).
    bool perElement = true;
    int available = 0;
  };
  std::vector<Output> outputs;

  //! Column sums (ReductionPattern::columnReductions): each accumulates its
  //! input's elements per column, in the phase its input is computed.
  std::vector<ReductionStep> columnSteps;
  //! Per-column tensors computed from the column sums, in `tensors` order.
  std::vector<const ir::TensorView*> columnComputed;
  //! Outputs written once per column (not in `outputs`).
  std::vector<Output> columnOutputs;

  const TensorRole& role(const ir::TensorView* tv) const;
  //! Whether `tv` is a leaf (read, not computed) inside phase `phase`:
  //! inputs, reduction outputs, per-row values, and stored tensors stored
  //! in an earlier phase.
  bool isLeafInPhase(const ir::TensorView* tv, int phase) const;
  //! What phase `phase` computes per element: step inputs, gather sources,
  //! tensors stored in it, and per-element outputs available in it.
  std::vector<const ir::TensorView*> phaseTargets(int phase) const;
  //! Steps accumulating in `phase`.
  std::vector<const ReductionStep*> stepsIn(int phase) const;
  //! Column sums accumulating in `phase`.
  std::vector<const ReductionStep*> columnStepsIn(int phase) const;
  //! Row gathers taking their element in `phase`.
  std::vector<const GatherStep*> gathersIn(int phase) const;

  std::map<const ir::TensorView*, TensorRole> roles;  // lookups only
};

//! The plan for `segment`. `persistent`: Welford is two-pass and
//! `storageCandidates` (persistent buffers, or the inputs they project to)
//! are kept resident where a later phase reads them. UserError for ops a
//! reduction kernel cannot compute.
ReductionPlan planReduction(const ir::Fusion& segment, const scheduler::ReductionPattern& pattern,
                            const RowLayout& layout, bool persistent,
                            const std::vector<const ir::TensorView*>& storageCandidates);

}  // namespace fuserlab::codegen
