// A Compare baseline file: one compile saved as JSON (the report as
// CompileReport::toJson writes it, with the file, fusion, device and option
// summary it was compiled with), so a later compile can be compared with it,
// as Nsight Compute compares a profile with a saved baseline. Plain C++.
#pragma once

#include <string>

#include "app/gui/compile_job.h"

namespace fuserlab::gui {

//! The file's "format" member.
inline constexpr const char* kBaselineFormat = "fuserlab-compare-baseline";
inline constexpr int kBaselineVersion = 1;

//! `snapshot` (which must hold a report) as a baseline file's text.
std::string baselineJson(const CompileSnapshot& snapshot, const std::string& settingsSummary);

struct Baseline {
  CompileSnapshot snapshot;  //!< report, file, fusion and device name
  std::string settingsSummary;
};

//! Reads a baseline file's text; a UserError saying what is wrong when it is
//! not one (another JSON, a newer version, a broken report).
Baseline baselineFromJson(const std::string& text, const std::string& fileName);

}  // namespace fuserlab::gui
