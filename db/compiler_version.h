// The compiler version an entry was made with and the range it is valid for.
// FuserLab's version is the CMake project version ("0.1.0"); an entry holds
// [min, max): valid from min, up to but not including max (open without max).
// A compiler whose heuristics or params semantics change bumps the version;
// `db prune` then drops entries that no longer apply.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fuserlab::db {

//! This build's version, e.g. "0.1.0".
std::string_view compilerVersion();

//! Compares dotted versions numerically ("0.10.0" > "0.9.1"); a missing
//! component counts as 0. UserError if a component is not a number.
int compareVersions(std::string_view a, std::string_view b);

//! Whether `version` lies in [min, max); no max: no upper bound.
bool versionInRange(std::string_view version, std::string_view min,
                    const std::optional<std::string>& max);

}  // namespace fuserlab::db
