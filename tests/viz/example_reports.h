// Compile reports of the bundled examples (resources/examples), compiled for
// the default device at the sizes of each script's inputs block.
#pragma once

#include <string>
#include <vector>

#include "core/report/compile_report.h"

namespace fuserlab::viz::testing {

//! `assignments` are CompileOptions settings, e.g. {"upcast=forward"}.
report::CompileReport compileExample(const std::string& fileName,
                                     const std::vector<std::string>& assignments = {});

//! The report of `text`, a script with an inputs block, compiled the same way.
report::CompileReport compileScriptText(const std::string& text, const std::string& name);

//! Examples the structure and layout tests run on (several schedulers,
//! kernel-free segments, forwarding and privatization).
const std::vector<std::string>& graphExamples();

}  // namespace fuserlab::viz::testing
