// The compiler driver: passes, then segmentation with scheduler choice and
// heuristics, at the shapes of concrete inputs on one device; and the
// CompileReport that records every step. Tensors may be metadata-only: the
// compiler never reads values.
#pragma once

#include <memory>

#include "core/compiler/compile_options.h"
#include "core/ir/fusion.h"
#include "core/report/compile_report.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/heuristic_provider.h"
#include "core/segmenter/segmented_fusion.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

struct CompiledFusion {
  std::unique_ptr<segmenter::SegmentedFusion> segmented;
  report::CompileReport report;
};

//! Compiles `fusion` for `inputs` (one per fusion input, bound through their
//! allocation domains) on `device`. A provider, when given, is asked for
//! params before the built-in heuristics. `withTextDumps` fills the report's
//! fusion_ir, fusion_ir_preseg and segmented_fusion texts; the report's
//! compileMicroseconds counts passes, segmentation and heuristics only.
CompiledFusion compileFusion(const ir::Fusion& fusion, const compiler::CompileOptions& options,
                             const scheduler::DeviceSpec& device, const Arguments& inputs,
                             const scheduler::HeuristicProvider* provider = nullptr,
                             bool withTextDumps = true);

}  // namespace fuserlab::runtime
