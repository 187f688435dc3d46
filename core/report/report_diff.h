// ReportDiff: what differs between two compile reports of one fusion (two
// option sets, two devices, a baseline and now), field by field. Segments
// are paired by what they compute, not by position: a segment split in two
// or merged away shifts every later index, and pairing by index then says
// every row differs. Each pair says whether it was rescheduled (another
// scheduler) and lists every params and properties field with both values;
// unpaired segments are added (only in B) or removed (only in A).
#pragma once

#include <string>
#include <vector>

#include "core/report/compile_report.h"

namespace fuserlab::report {

struct FieldDiff {
  std::string field;  //!< "params.vectorization_factor", "properties.persistent"
  std::string a;      //!< "" when A has no such field
  std::string b;
  bool differs() const { return a != b; }
};

enum class SegmentChange {
  Same,         //!< same exprs, scheduler, params and properties
  Changed,      //!< same scheduler, some exprs, params or properties differ
  Rescheduled,  //!< another scheduler
  Added,        //!< only in B
  Removed,      //!< only in A
};

const char* toString(SegmentChange change);

struct SegmentPair {
  int a = -1;  //!< segment id in A; -1 when added
  int b = -1;  //!< segment id in B; -1 when removed
  SegmentChange change = SegmentChange::Same;
  std::vector<FieldDiff> fields;  //!< scheduler, exprs, then params and properties
  int differingFields() const;
};

struct ReportDiff {
  std::vector<FieldDiff> summary;  //!< segments, kernels, host steps
  std::vector<SegmentPair> segments;
  //! Rows that differ: summary fields plus every segment field.
  int differences() const;
};

ReportDiff diffReports(const CompileReport& a, const CompileReport& b);

}  // namespace fuserlab::report
