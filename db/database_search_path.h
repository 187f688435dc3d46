// DatabaseSearchPath: several heuristics databases read as one, in order,
// the way MIOpen keeps a user's perf-db above the system one. The runtime
// takes it from --db (repeated) or FUSERLAB_DB=user.db:system.db. A lookup
// asks every file for the exact key first, in path order, then every file
// for the size bucket, in path order: the first file that answers wins, and
// an exact match in a later file beats a bucket match in an earlier one.
// Last, an entry of another device of the same architecture (other SM
// count, memory or clock) answers (database_same_arch): only an entry
// marked portable (Entry::portable), or any such entry where the user asks
// for it (Options::allowSameArchitecture: --allow-same-arch or
// FUSERLAB_DB_SAME_ARCH=1, an override for trying entries out). The
// answer names the file (ProvidedParams::origin), so the report says which
// file answered. Every file is opened read-only (a -journal, -wal or -shm
// is never created): a system database works from a read-only folder.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/scheduler/heuristic_provider.h"
#include "db/database_provider.h"

namespace fuserlab::db {

class DatabaseSearchPath : public scheduler::HeuristicProvider {
 public:
  struct Options {
    //! Also answer with an unmarked entry of another device of this
    //! device's architecture when no file has one of this device (marked
    //! entries answer without it).
    bool allowSameArchitecture = false;
  };

  //! Loads every file of `paths` in order. A path of one file must exist
  //! (UserError otherwise); in a longer path a missing file is left out
  //! with a note (a user database not yet written), but not all of them.
  DatabaseSearchPath(const std::vector<std::string>& paths, Options options);

  std::optional<scheduler::ProvidedParams> lookup(
      const ir::Fusion& segment, scheduler::SchedulerType type,
      const scheduler::SegmentRuntimeInfo& info) const override;

  //! The lookup's tiers for a key already computed (see the file comment).
  std::optional<scheduler::ProvidedParams> find(
      const SegmentKey& key, const std::vector<std::vector<int64_t>>& extents) const;

  //! The files loaded, in path order.
  const std::vector<std::unique_ptr<DatabaseProvider>>& files() const { return files_; }
  //! The loaded files' paths joined with ':' (for one-line messages).
  std::string path() const;
  //! Entries loaded from all files.
  size_t size() const;
  //! Every file's notes, each prefixed with its file, and the files left out.
  std::vector<std::string> notes() const;
  const Options& options() const { return options_; }

 private:
  std::vector<std::unique_ptr<DatabaseProvider>> files_;
  std::vector<std::string> missing_;
  Options options_;
};

//! "user.db:system.db" -> {"user.db", "system.db"}; empty parts (a leading,
//! trailing or doubled ':') are skipped.
std::vector<std::string> splitSearchPath(std::string_view text);

}  // namespace fuserlab::db
