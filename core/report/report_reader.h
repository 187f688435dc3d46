// Reading a compile report back from the JSON CompileReport::toJson writes
// (`fuserlab-cli inspect --json`, the workbench's export and its Compare
// baselines), so a compile saved earlier can be compared with one made now,
// as Nsight Compute compares with a saved baseline. What toJson leaves out
// (the text dumps, each segment's fusion_ir) stays empty.
#pragma once

#include "core/report/compile_report.h"
#include "core/report/json.h"

namespace fuserlab::report {

//! The report `json` holds; a UserError naming the member and what was
//! expected when it is not a compile report.
CompileReport reportFromJson(const Json& json);

}  // namespace fuserlab::report
