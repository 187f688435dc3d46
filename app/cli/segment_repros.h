// `inspect --segment N --repro OUT.py` and `inspect --repro-dir DIR`: a
// compiled fusion's segments written as standalone scripts
// (core/repro/segment_repro.h), one file per segment.
#pragma once

#include <ostream>
#include <set>
#include <string>

#include "app/cli/commands.h"
#include "core/compiler/fusion_compiler.h"

namespace fuserlab::cli {

//! The options inspect takes for segment repros.
inline const std::set<std::string> kSegmentReproOptions = {"segment", "repro", "repro-dir"};

//! Whether the command line asks for segment repros; checks that the options
//! go together (--repro needs --segment, --segment needs --repro, and the
//! script needs input sizes).
bool wantsSegmentRepros(const CommandLine& cl, const LoadedScript& loaded);

//! Writes what the options ask for and says which files it wrote on `text`.
//! --repro-dir DIR writes DIR/segment_<i>.py for every segment (DIR is
//! created).
void writeSegmentRepros(const CommandLine& cl, const LoadedScript& loaded,
                        const runtime::CompiledFusion& compiled, std::ostream& text);

}  // namespace fuserlab::cli
