// ScriptNames: the names a compile report shows for its values — the user's
// script's own names where it gave one (`T32 = fd.ops.add(...)`), and
// FuserLab's IR names only for values the script never named (those the
// reader or the passes made: the parts of a var_mean, a broadcast an op
// needed). Internal numbers differ from the script's as soon as the reader
// makes a value of its own, so a repro's T32 would show as T27 (issue 46).
//
// The map is from IR name to shown name. A script name given to two values
// (a variable reassigned) is not used; an unnamed value whose IR name is a
// shown script name of another value is shown with a prime ("T12'"), so no
// two values look alike. Report ids, graph ids and JSON keep the IR names;
// only what a person reads is renamed.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "core/report/compile_report.h"

namespace fuserlab::report {

class ScriptNames {
 public:
  ScriptNames() = default;
  explicit ScriptNames(const CompileReport& report);

  //! The shown name of IR name `name` (itself when unmapped).
  const std::string& shown(const std::string& name) const;
  //! `text` (an expr line, a fusion IR dump) with every IR name that is a
  //! whole token — "T27" in "T27 = add(T3, T4)" or "T27_l_float[...]", not
  //! in "T270" or "iT27" — replaced by its shown name.
  std::string rename(std::string_view text) const;
  bool empty() const { return shown_.empty(); }

 private:
  std::unordered_map<std::string, std::string> shown_;
};

}  // namespace fuserlab::report
