// The pre-segmentation pipeline: the passes in the order they run (the order
// and why is documented in pipeline.cpp).
#pragma once

#include <memory>
#include <vector>

#include "core/passes/pass.h"

namespace fuserlab::passes {

//! Every pass, in pipeline order.
const std::vector<std::unique_ptr<Pass>>& allPasses();
//! True if `name` names a pass.
bool isPassName(std::string_view name);

//! Runs the enabled passes on a copy of `fusion` and returns it; one record
//! per pass (disabled ones included, with enabled = false). With
//! `printAfterEachPass` each record also holds the fusion as printed after
//! its pass (what a pass-by-pass view shows; printing costs more than the
//! passes themselves, so the compiler's hot path leaves it off).
std::unique_ptr<ir::Fusion> runPasses(const ir::Fusion& fusion, const PassOptions& options,
                                      std::vector<PassRecord>* records,
                                      bool printAfterEachPass = false);

}  // namespace fuserlab::passes
