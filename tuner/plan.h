// A tuning plan: the fusions × input sizes a campaign tunes (issue 48 items
// 2 and 4). Read from either
//   - a plan file, one JSON object:
//       {"format": 1, "fusions": [
//          {"script": "ln.py", "fusion": "nanogpt_layer_norm",
//           "sizes": ["16x128x1600:bf16,1600:bf16,1600:bf16", ...]},
//          {"script": "silu_mul.py"}]}            (no "sizes": its inputs block)
//     where a relative script path is relative to the plan file's folder, or
//   - a record file (db/segment_recorder.h): one JSON object per line, each a
//     segment met on the built-in heuristic; lines of one script, fusion and
//     inputs become one item that tunes only the recorded segments.
// Items keep the order they are first named in and appear once each: what
// shards slice (tuner/shard.h).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/report/json.h"

namespace fuserlab::tuner {

struct PlanItem {
  std::string script;
  std::optional<std::string> fusion;  //!< nullopt: the one the script executes
  std::optional<std::string> inputs;  //!< --inputs text; nullopt: the inputs block
  //! Structure hashes of the segments to tune; empty: every tunable one.
  std::set<std::string> segmentHashes;

  //! "script|fusion|inputs": what makes two items one.
  std::string identity() const;
  report::Json toJson() const;
};

//! Reads a plan or record file's text (`name` and `folder` for messages and
//! relative scripts). UserError naming the line of a malformed entry.
std::vector<PlanItem> parsePlan(const std::string& text, const std::string& name,
                                const std::string& folder);

//! parsePlan of the file at `path`.
std::vector<PlanItem> readPlanFile(const std::string& path);

}  // namespace fuserlab::tuner
