// The fusion graph of a compile report: a node per op ("op/T5", named after
// the first value it writes) and per value ("val/T5", labelled with name,
// dtype and shape), fusion inputs and outputs marked, no segments. Built
// from the segments' expr flow, so it is the fusion the segmenter saw (after
// the passes and, under upcast=privatize, with the upcasts' clones); an expr
// that upcast=forward recomputes in several segments appears once.
#pragma once

#include "core/report/compile_report.h"
#include "viz/graph.h"

namespace fuserlab::viz {

Graph buildFusionGraph(const report::CompileReport& report);

}  // namespace fuserlab::viz
