// nvFuser's dump vocabulary (NVFUSER_DUMP=a,b and --dump a,b): every name
// nvFuser's options.cpp accepts, as a table (name -> what `inspect` prints
// for it, or where FuserLab shows it instead, or why FuserLab has no
// counterpart), and the printing of the dumps `inspect` has.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/command_line.h"
#include "app/cli/commands.h"
#include "core/compiler/fusion_compiler.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab::cli {

enum class DumpCounterpart {
  Inspect,    //!< inspect prints it (needs input sizes, except fusion_ir)
  Elsewhere,  //!< another command or view shows it; `what` says which
  None,       //!< FuserLab has nothing like it; `what` says why
};

struct NvfuserDump {
  std::string_view name;  //!< nvFuser's spelling
  DumpCounterpart counterpart;
  std::string_view what;  //!< what FuserLab prints, where it shows it, or why not
};

//! The table, sorted by name: all of nvFuser's DebugDumpOption names.
const std::vector<NvfuserDump>& nvfuserDumps();

//! The dumps asked for by --dump (repeatable, comma-separated) and the
//! NVFUSER_DUMP environment variable (nvFuser's syntax: comma-separated,
//! a name may carry arguments in parentheses, which FuserLab ignores). An
//! unknown name is a UserError listing the accepted names.
std::vector<const NvfuserDump*> requestedDumps(const CommandLine& cl);

//! Prints each requested dump after inspect's summary: the text of those
//! inspect has, a line saying where or why not for the others.
//! `compiled` is null when the script has no input sizes.
void printDumps(const std::vector<const NvfuserDump*>& dumps, const LoadedScript& loaded,
                const runtime::CompiledFusion* compiled, const scheduler::DeviceSpec& device,
                std::ostream& text);

}  // namespace fuserlab::cli
