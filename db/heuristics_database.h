// HeuristicsDatabase: the heuristics database file, through its schema.
// Opening it checks the stamp and migrates (schema.h); every statement is
// prepared once here and executed with bound values. Writes are meant to run
// inside a Transaction on connection(): several writes then commit together
// or not at all.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "db/connection.h"
#include "db/entry.h"

namespace fuserlab::db {

class HeuristicsDatabase {
 public:
  enum class Access {
    Read,    //!< the file must exist and be current
    Write,   //!< a missing file is created; an older one is migrated; a file
             //!< that fails SQLite's quick_check is refused (nothing written)
    Verify,  //!< Write that opens a damaged file all the same (db verify)
  };

  HeuristicsDatabase(const std::string& path, Access access);
  ~HeuristicsDatabase();
  HeuristicsDatabase(const HeuristicsDatabase&) = delete;
  HeuristicsDatabase& operator=(const HeuristicsDatabase&) = delete;

  Connection& connection() { return *connection_; }
  const std::string& path() const { return connection_->path(); }

  //! Every entry by id; `withVariants` also reads each one's measured
  //! variants. A row that cannot be read (a damaged page, a stored value
  //! that does not parse) is skipped with a note in readNotes().
  std::vector<Entry> entries(bool withVariants = false);
  //! What the last entries() skipped, one sentence each.
  const std::vector<std::string>& readNotes() const { return readNotes_; }
  std::optional<Entry> entry(int64_t id, bool withVariants = true);
  //! The entry with `like`'s key (segment structure, scheduler, sizes,
  //! device fingerprint, params schema), if any.
  std::optional<Entry> entryWithKey(const Entry& like);

  //! Stores `entry` under its key: a new row, or the existing row of that
  //! key replaced in place (its id kept, and its portable mark: a replaced
  //! entry is marked when either was). Its run, chosen measurement and
  //! variants are stored too (a measurement equal in run, params, samples,
  //! median and error to a stored one is that one). Returns the id.
  int64_t store(const Entry& entry);
  //! Records one measured variant (the tuner's call); returns its row id.
  int64_t storeMeasurement(const SegmentRecord& segment, const DeviceRecord& device,
                           const MeasurementRecord& measurement);
  //! Every measurement stored for `segment` on `device`, of every run (the
  //! tuner's resume reads them). Registers the segment and the device if
  //! they are new.
  std::vector<MeasurementRecord> measurementsFor(const SegmentRecord& segment,
                                                 const DeviceRecord& device);
  //! Marks entry `id` (every entry when nullopt) as usable on another device
  //! of the same architecture, or clears the mark; returns the entries
  //! changed (an entry already so counts 0).
  int64_t setPortable(std::optional<int64_t> id, bool portable);
  //! Deletes entry `id`; false if there is none.
  bool remove(int64_t id);
  //! Deletes segments, devices, runs and measurements no entry refers to,
  //! keeping measurements of segments that have an entry. Returns the rows
  //! deleted.
  int64_t removeUnreferenced();

  //! Counts of rows per table, for `db verify`: devices, segments,
  //! tuning_runs, measurements, entries.
  std::vector<std::pair<std::string, int64_t>> tableCounts();

 private:
  struct Statements;

  int64_t deviceId(const DeviceRecord& device);
  int64_t segmentId(const SegmentRecord& segment);
  int64_t runId(const RunRecord& run);
  int64_t measurementId(int64_t segment, int64_t device, const MeasurementRecord& measurement);
  std::vector<Entry> readEntries(bool withVariants, std::optional<int64_t> id);
  //! The first id from which the entries can be read again after reading
  //! from `from` on failed with damage (`why`); nullopt: none. Notes what
  //! it skips.
  std::optional<int64_t> resumeAfterDamage(int64_t from, const std::string& why);
  //! With `notes`, a measurement that cannot be read is skipped with a note
  //! there instead of failing the read.
  std::vector<MeasurementRecord> measurementsOf(int64_t segment, int64_t device,
                                                std::vector<std::string>* notes = nullptr);
  std::optional<MeasurementRecord> measurement(int64_t id);

  std::unique_ptr<Connection> connection_;
  std::unique_ptr<Statements> statements_;
  std::vector<std::string> readNotes_;
};

}  // namespace fuserlab::db
