// CompileOptions: every switch of the compiler in one typed struct, settable
// by name from the CLI (`--set bookend=inputs_and_outputs`,
// `--disable-pass consecutive_cast`) and the GUI. Never read from the
// environment.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/report/json.h"

namespace fuserlab::passes {

//! mark_aliases_prepare: which meta ops become kernel-free segments.
enum class BookendMode : uint8_t {
  None,              //!< keep meta ops inside kernels
  Outputs,           //!< meta ops feeding only outputs, and outputs that
                     //!< view an input (nvFuser's default)
  InputsAndOutputs,  //!< also meta ops applied to inputs (seed 001)
};

//! How the segmenter treats upcasts of inputs used by several exprs (seed 000).
enum class UpcastStrategy : uint8_t {
  Privatize,  //!< clone a multi-use upcast per use; revert clones that meet
  Forward,    //!< nvFuser's input forwarding: replicate unary chains from
              //!< inputs into each consumer segment
};

std::string_view toString(BookendMode mode);
std::string_view toString(UpcastStrategy strategy);

struct CompileOptions {
  BookendMode bookend = BookendMode::Outputs;
  UpcastStrategy upcast = UpcastStrategy::Privatize;
  //! Whether a GPU run launches each generated kernel after the first as a
  //! programmatic dependent of the launch before it (sm_90+; the runtime's
  //! choice, not the kernels': they are the same either way).
  bool dependentLaunch = true;
  //! Whether a replayed GPU run (a cached run at known sizes) queues its
  //! generated kernels as one CUDA graph, re-pointed to the run's buffers,
  //! rather than with one launch call each (the runtime's choice too).
  bool graphLaunch = true;
  //! Names of passes switched off (`--disable-pass NAME`).
  std::vector<std::string> disabledPasses;

  //! Sets an option by name from text: "bookend" = none | outputs |
  //! inputs_and_outputs, "upcast" = privatize | forward, "dependent_launch"
  //! and "graph_launch" = on | off. A UserError lists the known names or values.
  void set(std::string_view name, std::string_view value);
  //! Parses "NAME=VALUE" (the CLI's --set argument).
  void setFromAssignment(std::string_view assignment);
  //! Every setting as "NAME=VALUE", in the name table's order; each read
  //! back with setFromAssignment gives these settings again. Disabled passes
  //! are not settings: they travel as --disable-pass.
  std::vector<std::string> assignments() const;
  //! Switches a pass off; a UserError lists the pass names if unknown.
  void disablePass(std::string_view passName);
  bool passEnabled(std::string_view passName) const;

  report::Json toJson() const;
};

//! A setting of CompileOptions::set and the values it takes.
struct CompileSetting {
  std::string_view name;
  std::vector<std::string_view> values;
};

//! Every setting CompileOptions::set knows, in the name table's order.
std::vector<CompileSetting> compileSettings();

}  // namespace fuserlab::passes
