// fuserlab-cli's usage text, and each subcommand's part of it with an
// example (`fuserlab-cli COMMAND --help`).
#pragma once

#include <optional>
#include <string>

namespace fuserlab::cli {

//! Every command, its arguments and options, SPEC, the environment and the
//! exit codes.
extern const char* const kUsage;

//! `command`'s entry of kUsage, the notes every command shares, and an
//! example; nullopt for a command kUsage does not list.
std::optional<std::string> commandHelp(const std::string& command);

}  // namespace fuserlab::cli
