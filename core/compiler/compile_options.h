// CompileOptions: every switch of the compiler, owned here, where the stages
// meet. Each stage reads only its own part — the passes PassOptions
// (core/passes/pass_options.h), the segmenter SegmenterOptions
// (core/segmenter/segmenter_options.h), the runtime LaunchOptions — and the
// aggregate keeps the one name table that sets them by name from the CLI
// (`--set bookend=inputs_and_outputs`, `--disable-pass consecutive_cast`), the
// GUI and the Python module, writes them back as NAME=VALUE (the tuner's
// worker argv) and as JSON (the report). Never read from the environment.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/passes/pass_options.h"
#include "core/report/json.h"
#include "core/segmenter/segmenter_options.h"

namespace fuserlab::compiler {

//! How a GPU run queues its kernels (the runtime's choice: the kernels are
//! the same either way).
struct LaunchOptions {
  //! Whether a GPU run launches each generated kernel after the first as a
  //! programmatic dependent of the launch before it (sm_90+).
  bool dependentLaunch = true;
  //! Whether a replayed GPU run (a cached run at known sizes) queues its
  //! generated kernels as one CUDA graph, re-pointed to the run's buffers,
  //! rather than with one launch call each.
  bool graphLaunch = true;
};

struct CompileOptions : passes::PassOptions, segmenter::SegmenterOptions, LaunchOptions {
  //! Sets an option by name from text: "bookend" = none | outputs |
  //! inputs_and_outputs, "upcast" = privatize | forward, "dependent_launch",
  //! "graph_launch" and "refine_reshaped_reductions" = on | off. A UserError
  //! lists the known names or values.
  void set(std::string_view name, std::string_view value);
  //! Parses "NAME=VALUE" (the CLI's --set argument).
  void setFromAssignment(std::string_view assignment);
  //! Every setting as "NAME=VALUE", in the name table's order; each read
  //! back with setFromAssignment gives these settings again. Disabled passes
  //! are not settings: they travel as --disable-pass.
  std::vector<std::string> assignments() const;

  report::Json toJson() const;
};

//! A setting of CompileOptions::set and the values it takes.
struct CompileSetting {
  std::string_view name;
  std::vector<std::string_view> values;
};

//! Every setting CompileOptions::set knows, in the name table's order.
std::vector<CompileSetting> compileSettings();

}  // namespace fuserlab::compiler
