// CompileJob: one compilation as the workbench asks for it, and the finished
// snapshot it produces. Plain C++ (no Qt) so it runs on any worker thread:
// the job reads the script from the editor's text itself, so nothing is
// shared with the GUI thread, and every failure becomes part of the snapshot
// (a message, and the script position when the reader knows it), never an
// exception.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/compiler/compile_options.h"
#include "core/ir/error.h"
#include "core/report/compile_report.h"

namespace fuserlab::gui {

//! The switches a user flips: device, compiler options, database.
struct CompileSettings {
  //! A built-in device key ("h100") or "cuda:N"; empty: the default device.
  std::string device;
  compiler::CompileOptions options;
  //! Input sizes in the CLI's --inputs form; empty: the script's inputs block.
  std::string inputs;
  //! A heuristics database file to take params from; empty: none.
  std::string databasePath;

  //! "h100, upcast=privatize, bookend=outputs, -consecutive_cast".
  std::string summary() const;
};

struct CompileRequest {
  std::string source;      //!< the script's text
  std::string fileName;    //!< for messages ("<pasted>" if none)
  std::string fusionName;  //!< a definition's name; empty: the executed one
  CompileSettings settings;
};

//! The CUDA of one kernel segment, or why there is none.
struct SegmentCode {
  int segment = 0;
  std::string kernelName;
  std::string source;
  //! The NVRTC options the kernel's params ask for (e.g. --maxrregcount).
  std::vector<std::string> options;
  std::string error;
};

//! One segment as a standalone script (core/repro/segment_repro.h), or
//! why it could not be written.
struct SegmentScript {
  std::string script;
  std::string error;
};

struct CompileSnapshot {
  //! Set when reading or compiling failed; the report is then absent.
  std::optional<std::string> error;
  //! Where in the script the error is, when the reader knows (1-based).
  std::optional<SourceLocation> errorLocation;
  std::string fileName;
  std::string fusionName;
  std::vector<std::string> definitions;
  std::string deviceName;
  std::string inputsOrigin;  //!< "the inputs block", "inputs setting"
  std::optional<report::CompileReport> report;
  std::vector<SegmentCode> kernels;  //!< one per kernel segment
  //! One per segment: what "Export segment as script" writes.
  std::vector<SegmentScript> segmentScripts;
  //! The structure hash of every segment the compiler looked up (what the
  //! heuristics database keys entries by), in lookup order.
  std::vector<std::string> segmentHashes;
  //! Per segment whose params came from a database entry that also holds a
  //! measurement of the heuristic's params: heuristic median / entry's
  //! median (the tuned params' speedup).
  std::map<int, double> tunedSpeedups;
  double milliseconds = 0;  //!< the whole job: reading, compiling, codegen

  bool ok() const { return !error.has_value(); }
  //! The code of segment `id`; null if it launches no kernel.
  const SegmentCode* codeFor(int id) const;
};

//! Reads, compiles and generates the kernels; never throws.
CompileSnapshot runCompileJob(const CompileRequest& request);

//! Built-in device keys in table order, then "cuda:N" for each GPU here.
std::vector<std::string> availableDevices();

}  // namespace fuserlab::gui
