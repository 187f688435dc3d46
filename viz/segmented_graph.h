// The segmented graph of a compile report: a cluster per segment ("seg3"),
// labelled and coloured by its scheduler (kernel-free segments grey and
// dashed), an op node per expr of the segment ("seg3/T5", named after the
// value it writes; under upcast=forward a forwarded expr appears in every
// segment that recomputes it), fusion inputs ("in/T0") and outputs
// ("out/T9") outside the clusters, and the report's edges between segments
// drawn from the producing op to each consuming op, labelled with tensor,
// dtype and shape. The segment-level graph draws a segment as one node with
// the same id, for large fusions; a segment's inside is its own graph.
#pragma once

#include "core/report/compile_report.h"
#include "viz/graph.h"

namespace fuserlab::viz {

struct SegmentedGraphOptions {
  bool legend = true;  //!< append the scheduler legend cluster
};

//! Every segment as a cluster of its ops.
Graph buildSegmentedGraph(const report::CompileReport& report,
                          const SegmentedGraphOptions& options = {});

//! A node per segment ("seg3"), fusion inputs and outputs, and the report's
//! edges between segments (id "seg1->seg3:T5"); small whatever the fusion.
Graph buildSegmentOverviewGraph(const report::CompileReport& report,
                                const SegmentedGraphOptions& options = {});

//! The inside of one segment: its cluster and op nodes with the ids they
//! have in buildSegmentedGraph, and a stub node per value crossing its
//! boundary ("seg3/in/T4", "seg3/out/T9"). A UserError if no such segment.
Graph buildSegmentInteriorGraph(const report::CompileReport& report, int segmentId);

}  // namespace fuserlab::viz
