// ValueFlow: who writes and who reads each value of a compile report, for
// the graph's "go to producer / consumer" (issue 46). A value's producers
// are the values the expr writing it reads; its consumers the values written
// by the exprs that read it. An expr recomputed in several segments (input
// forwarding) counts once. Constants are left out: they are not drawn.
// Plain C++ over the report's expr_flow.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/report/compile_report.h"

namespace fuserlab::gui {

class ValueFlow {
 public:
  ValueFlow() = default;
  explicit ValueFlow(const report::CompileReport& report);

  //! The values the expr writing `value` reads, in operand order; none for
  //! a fusion input.
  const std::vector<std::string>& producers(const std::string& value) const;
  //! The values written by exprs that read `value`, in report order.
  const std::vector<std::string>& consumers(const std::string& value) const;

 private:
  std::map<std::string, std::vector<std::string>> producers_;
  std::map<std::string, std::vector<std::string>> consumers_;
};

}  // namespace fuserlab::gui
