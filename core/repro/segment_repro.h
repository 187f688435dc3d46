// Segment repros: one segment of a compiled fusion as a standalone nvFuser
// script, the way nvFuser's `python_definition_segments` dump and Thunder's
// bug reports cut a failing fusion down. The script is the segment's own
// fusion (writeScript) followed by an inputs block at the segment's input
// sizes: a segment input that is a fusion input keeps the fusion input's
// constructor, strides included; an intermediate tensor is drawn fresh
// (torch.randn for floating dtypes, make_tensor otherwise) with the stride
// order the segment reads it in; a scalar takes the value it had. FuserLab
// and nvFuser both read the result.
#pragma once

#include <string>
#include <vector>

#include "core/compiler/fusion_compiler.h"
#include "core/frontend/script.h"

namespace fuserlab::frontend {

//! The inputs block of segment `segment` of `compiled`, which was compiled
//! for `fusionInputs` (one spec per input of the fusion given to
//! compileFusion, in order). One spec per input of the segment's fusion.
std::vector<InputSpec> segmentInputSpecs(const runtime::CompiledFusion& compiled, size_t segment,
                                         const std::vector<InputSpec>& fusionInputs);

//! The standalone script of segment `segment`: a comment naming where it
//! came from (`origin`, e.g. the file name) and its scheduler, the segment's
//! definition, the `with FusionDefinition() as fd:` block, the inputs block
//! and `fd.execute(inputs)`. A segment index out of range is a UserError.
std::string writeSegmentRepro(const runtime::CompiledFusion& compiled, size_t segment,
                              const std::vector<InputSpec>& fusionInputs,
                              const std::string& origin);

}  // namespace fuserlab::frontend
