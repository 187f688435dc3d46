// How the graphs look, decided once: a colour per scheduler, the grey of
// kernel-free segments, and the text of value and edge labels (name, dtype,
// concrete shape), so the fusion and segmented graphs agree.
#pragma once

#include <string>
#include <vector>

#include "core/report/compile_report.h"
#include "viz/graph.h"

namespace fuserlab::viz {

//! A light fill colour (#rrggbb) per scheduler name; unknown names get grey.
std::string schedulerFillColor(const std::string& scheduler);
//! The darker border colour that goes with schedulerFillColor.
std::string schedulerBorderColor(const std::string& scheduler);
//! Kernel-free segments (no_op, expr_eval) are drawn grey and dashed.
inline constexpr const char* kKernelFreeFill = "#eeeeee";
inline constexpr const char* kKernelFreeBorder = "#888888";

//! "[128, 1024]"; a size the report could not evaluate prints as "?".
std::string shapeText(const std::vector<int64_t>& shape);
//! "T5 float [128, 1024]" (one line) for edges.
std::string valueText(const report::TensorReport& value);
//! Every node and edge label of `graph` with the script's own names
//! (report/script_names.h); ids keep the IR names.
void showScriptNames(Graph& graph, const report::CompileReport& report);

//! A legend cluster ("legend") with one entry per scheduler in
//! `schedulers` (in that order) and, when `withKernelFree`, one for
//! kernel-free segments.
void appendLegend(Graph& graph, const std::vector<std::string>& schedulers, bool withKernelFree);

}  // namespace fuserlab::viz
