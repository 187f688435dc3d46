// SegmentKey: what a heuristics-database entry is looked up by. Two segments
// share a key when they compute the same thing on data of the same layout,
// at the same sizes, on the same kind of GPU, for the same params schema:
//   structure  - a hash of the segment's ops (with attributes), dtypes,
//                declared contiguity and stride order, each input's actual
//                layout class (stride order, dense or not) and alignment
//                class; independent of tensor names and of the order the
//                exprs were written in (a Merkle hash over the expr DAG);
//   sizes      - every input's extents exactly ("16x128x1600,1600,1600";
//                "s" for a scalar; "@" and the strides where they are not
//                the dense strides of the sizes);
//   size bucket- each extent rounded up to four significant binary digits
//                (eight steps per octave: 1600 -> 1664, so 1537..1664 share
//                one bucket and 1665..1792 the next); extents up to 16 stay
//                exact;
//   device     - compute capability, SM count, memory (whole decimal GB), L2
//                (KiB) and clock (MHz), as text: "sm_90-132sm-80gb-51200kib-1980mhz";
//   params schema - the params struct's kSchemaVersion (0: no params).
// All of it is stable across runs, builds and platforms: the hash reads
// names, not enum values or pointers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/fusion.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/runtime_info.h"
#include "core/scheduler/scheduler_type.h"

namespace fuserlab::db {

struct SegmentKey {
  std::string structureHash;  //!< 16 lower-case hex digits
  std::string scheduler;      //!< "inner_persistent"
  std::string sizes;
  std::string sizeBucket;
  std::string deviceFingerprint;
  int paramsSchema = 0;

  bool operator==(const SegmentKey&) const = default;
};

//! The structural hash of `segment` with its inputs laid out as `info` says.
uint64_t structuralHash(const ir::Fusion& segment, const scheduler::SegmentRuntimeInfo& info);

//! `extent` rounded up to four significant binary digits (see above).
int64_t sizeBucket(int64_t extent);

//! The exact sizes text and the bucket text of the inputs in `info`.
std::string sizesText(const scheduler::SegmentRuntimeInfo& info);
std::string sizeBucketText(const scheduler::SegmentRuntimeInfo& info);

std::string deviceFingerprint(const scheduler::DeviceSpec& device);

//! The kSchemaVersion of the params `type` takes; 0 for none.
int paramsSchemaVersion(scheduler::SchedulerType type);

//! The full key of `segment`, to be scheduled by `type`.
SegmentKey segmentKey(const ir::Fusion& segment, scheduler::SchedulerType type,
                      const scheduler::SegmentRuntimeInfo& info);

//! 16 lower-case hex digits.
std::string hex64(uint64_t value);

}  // namespace fuserlab::db
