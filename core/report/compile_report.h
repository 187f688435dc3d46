// CompileReport: what the compiler did with one fusion, as plain data: the
// device and options, each pass's rewrites, the segments (scheduler, params,
// properties, every refusal with its reason), the edges between segments and
// the segmenter's decisions. It is the contract with every UI: the CLI prints
// it, the GUI draws it, the tuner and the database key on it. Its JSON names
// are stable (see toJson).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/report/json.h"

namespace fuserlab::report {

struct PassReport {
  std::string name;
  bool enabled = true;
  std::vector<std::string> rewrites;
};

struct RejectionReport {
  std::string scheduler;
  std::string reason;
};

//! One expr's data flow: the op's name and the names of the values it reads
//! and writes, so a UI can draw the graph without parsing printed IR.
struct ExprReport {
  std::string op;  //!< as the frontend spells it: "add", "sum", "cast"
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

//! A value that an expr of some segment reads or writes.
struct TensorReport {
  std::string name;
  //! The name the user's script gave it; "" where it gave none.
  std::string scriptName;
  //! The script line (1-based) that defines it; 0 where none does.
  int scriptLine = 0;
  std::string dtype;
  std::vector<int64_t> shape;  //!< concrete sizes; empty for scalars
  bool isTensor = true;
  bool isConstant = false;  //!< a literal scalar (its name is its value)
  bool isFusionInput = false;
  bool isFusionOutput = false;
};

struct SegmentReport {
  int id = 0;
  std::string scheduler;  //!< no_op, expr_eval, pointwise, inner_persistent, ...
  bool launchesKernel = false;
  std::vector<std::string> exprs;    //!< one printed line per expr
  std::vector<ExprReport> exprFlow;  //!< parallel to exprs
  std::vector<std::string> inputs;   //!< tensor/scalar names
  std::vector<std::string> outputs;
  Json params = Json();  //!< null for schedulers without params
  //! "heuristic", "database_exact" or "database_bucket" (a provider's name).
  std::string paramsSource = "heuristic";
  //! The heuristics-database entry the params came from; 0 if none.
  int64_t paramsEntryId = 0;
  //! The database file the params came from (with a search path of several
  //! files, which one answered); empty for the heuristic.
  std::string paramsOrigin;
  //! For "database_same_arch": the fingerprint of the device the entry was
  //! measured on (this device's architecture, another SM count or clock).
  std::string paramsFallbackDevice;
  //! Why a provider's params were not used (refused by the scheduler's
  //! checks), else empty.
  std::string paramsNote;
  Json properties = Json::object();
  std::vector<RejectionReport> rejected;
  std::string fusionIr;  //!< the segment as a fusion of its own
};

struct EdgeReport {
  int from = 0;
  int to = 0;
  std::string tensor;
  std::string dtype;
  std::vector<int64_t> shape;  //!< concrete sizes at these inputs
};

struct DecisionReport {
  std::string kind;
  std::vector<int> groups;
  bool accepted = false;
  std::string reason;
};

struct CompileReport {
  Json device = Json::object();  //!< name, key, compute_capability, ...
  Json options = Json::object();
  std::vector<PassReport> passes;
  std::vector<SegmentReport> segments;
  std::vector<EdgeReport> edges;
  //! Every value the segments' exprs read or write, in order of first use.
  std::vector<TensorReport> values;
  std::vector<DecisionReport> decisions;
  //! Text dumps, as nvFuser's: fusion_ir (as read), fusion_ir_preseg (after
  //! the passes), segmented_fusion.
  std::string fusionIr;
  std::string fusionIrPreseg;
  std::string segmentedFusion;
  //! Wall time of passes + segmentation + heuristics, microseconds.
  double compileMicroseconds = 0;
  //! What the last GPU run of this compilation launched (set by the GPU
  //! executor; null before one): kernel_launches, library_calls,
  //! host_steps, copy_kernels (one reason each).
  Json run = Json();

  int kernelCount() const;
  //! Each segment's params_source, in segment order.
  std::vector<std::string> paramsSources() const;

  //! Keys: device, options, passes, segments (id, scheduler,
  //! launches_kernel, exprs, expr_flow [{op, inputs, outputs}], inputs,
  //! outputs, params, params_source, params_entry_id (null if none),
  //! params_note ("" if none), properties, rejected [{scheduler, reason}]),
  //! edges (from, to, tensor, dtype, shape), values (name, dtype, shape,
  //! is_tensor, is_constant, is_fusion_input, is_fusion_output, script_name
  //! when the script named it, script_line when a line defines it),
  //! decisions (kind, groups, accepted, reason), kernel_count,
  //! segment_count, host_step_count (kernel-free segments), compile_us, and
  //! run when a GPU run filled it.
  Json toJson() const;

  //! The `scheduler_params` dump: per segment, its properties and params.
  std::string schedulerParamsText() const;
  //! The `segmenter_logging` dump: one line per decision.
  std::string segmenterLoggingText() const;
};

}  // namespace fuserlab::report
