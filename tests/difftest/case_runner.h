// One differential-test case, in this process: a generated script is read as
// a user's script would be, run on the CPU reference, and then either
// compiled for the default device with every kernel built by NVRTC (the
// compile mode, no GPU) or run on a GPU with poisoned outputs and compared
// with the reference output by output, and input by input where an output
// is written back into it (the gpu mode).
#pragma once

#include <string>
#include <vector>

namespace fuserlab::difftest {

enum class Mode { Compile, Gpu };

//! How a case ended. Pass, Unavailable (a kernel the product refuses by
//! name, with a clear message) and Refused (the compiler refuses the fusion
//! with a UserError, e.g. an in-place write that would race) are not
//! failures; Invalid means the generator wrote something the reader or the
//! reference does not take (a generator bug, reported apart); the rest are
//! failures the tester exists to find.
enum class Status {
  Pass,
  Unavailable,
  Refused,
  Invalid,
  WrongResult,    //!< an output or updated input differs from the reference
  InternalError,  //!< an FL_ASSERT or another unexpected exception
  BuildFailure,   //!< NVRTC rejected generated CUDA
  Crash,          //!< the worker died (signal, CUDA fault, abort) or hung
};

const char* toString(Status status);
Status statusFromString(const std::string& text);
bool isFailure(Status status);

struct CaseResult {
  Status status = Status::Pass;
  //! One line: what differed, or the error's first line.
  std::string detail;
  int kernels = 0;
  //! The worker must not run another case in this process (a CUDA error).
  bool restartWorker = false;
};

//! Runs the script `source` (named `name` in messages) with compile options
//! `options` (NAME=VALUE, as CompileOptions::setFromAssignment takes them).
//! `device` is the CUDA device index for Mode::Gpu.
CaseResult runCase(const std::string& source, const std::string& name,
                   const std::vector<std::string>& options, Mode mode, int device);

//! The options a written case records in its header line
//! "# Compile options: --set NAME=VALUE ..." (none without one), so a saved
//! failure runs again as it failed.
std::vector<std::string> optionsInHeader(const std::string& source);

}  // namespace fuserlab::difftest
