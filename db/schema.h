// The heuristics database's schema: the file is stamped with
// PRAGMA application_id (kApplicationId) and PRAGMA user_version (the schema
// version), and reaches the current version through a ladder of migration
// steps run in one transaction. Opening a file of another application, of a
// newer schema or a damaged file is a UserError that says so.
//
// Tables (version 1):
//   devices       one row per device fingerprint, with its DeviceSpec
//   segments      one row per (structure hash, scheduler, exact sizes): the
//                 workload, with its size bucket and printed IR
//   tuning_runs   provenance: compiler, CUDA and driver versions, date,
//                 command, host
//   measurements  one row per params variant measured in a run (statistics
//                 in ns, or the error of a variant that failed)
//   entries       the chosen params per (segment, device, params schema),
//                 with the compiler version range they are valid for
// Version 2 adds entries.portable (0 or 1, default 0): the entry may answer
// on another device of the same architecture (database_same_arch). A reader
// opens a version-1 file as it is (read-only, nothing migrated; every entry
// unmarked); the next command that writes migrates it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "db/connection.h"

namespace fuserlab::db {

//! "FLHD" (FuserLab Heuristics Database).
inline constexpr int32_t kApplicationId = 0x464C4844;

//! One rung of the ladder: brings a file from version `to - 1` to `to`.
struct Migration {
  int to = 0;
  std::function<void(Connection&)> apply;
};

//! The ladder this build knows; its last rung is kSchemaVersion.
const std::vector<Migration>& schemaLadder();
inline constexpr int kSchemaVersion = 2;
//! The oldest version a read-only connection reads without migrating.
inline constexpr int kOldestReadableVersion = 1;

//! Checks the file's stamp and brings it to the ladder's last version: a new
//! (empty) file is stamped and created; an older one is migrated in one
//! transaction (all steps or none); a foreign, newer or damaged file is a
//! UserError. Sets foreign keys; a writer keeps the file in rollback-journal
//! mode (switching a WAL file back), so readers need no side files. A
//! read-only connection opens a file of kOldestReadableVersion or later as
//! it is (the caller reads by schemaVersion); an empty one is an error.
void prepareSchema(Connection& connection, const std::vector<Migration>& ladder = schemaLadder());

//! The schema version stamped on the file.
int schemaVersion(Connection& connection);

}  // namespace fuserlab::db
