#include "db/heuristics_database.h"

#include <limits>

#include "core/ir/error.h"
#include "db/schema.h"
#include "db/statement.h"

namespace fuserlab::db {
namespace {

using report::Json;

// The entry rows' columns; the last, entries.portable, exists from schema
// version 2 on (a reader of a version-1 file reads 0: unmarked).
std::string entryColumns(bool portableColumn) {
  return std::string(R"sql(
SELECT e.id, e.params_schema, e.min_compiler_version, e.max_compiler_version,
       e.params_json, e.params_hash, e.origin, e.created_at, e.measurement_id,
       s.id, s.structure_hash, s.scheduler, s.sizes, s.size_bucket, s.fusion_ir,
       d.id, d.fingerprint, d.key, d.name, d.compute_capability, d.sm_count,
       d.memory_bytes, d.l2_bytes, d.clock_khz, d.spec_json,
       r.compiler_version, r.cuda_version, r.driver_version, r.created_at,
       r.command, r.host, )sql") +
         (portableColumn ? "e.portable" : "0") + R"sql(
FROM entries e
JOIN segments s ON s.id = e.segment_id
JOIN devices d ON d.id = e.device_id
JOIN tuning_runs r ON r.id = e.run_id
)sql";
}

constexpr const char* kMeasurementColumns = R"sql(
SELECT m.params_json, m.params_hash, m.samples, m.median_ns, m.mean_ns,
       m.min_ns, m.max_ns, m.stddev_ns, m.error,
       r.compiler_version, r.cuda_version, r.driver_version, r.created_at,
       r.command, r.host
FROM measurements m JOIN tuning_runs r ON r.id = m.run_id
)sql";

// JSON stored by this class; a cell that does not parse is damage.
Json parseStored(const std::string& text, const std::string& path, const char* what) {
  try {
    return Json::parse(text);
  } catch (const UserError& error) {
    FL_USER_ERROR("heuristics database '", path, "': a stored ", what, " is not valid JSON (",
                  error.message(), "); run fuserlab-cli db verify");
  }
}

RunRecord readRun(const Statement& s, int first) {
  RunRecord run;
  run.compilerVersion = s.columnText(first);
  run.cudaVersion = s.columnOptionalText(first + 1);
  run.driverVersion = s.columnOptionalText(first + 2);
  run.createdAt = s.columnText(first + 3);
  run.command = s.columnText(first + 4);
  run.host = s.columnOptionalText(first + 5);
  return run;
}

// A row of kMeasurementColumns; a stored value that does not parse is a
// UserError.
MeasurementRecord readMeasurement(const Statement& s, const std::string& path) {
  MeasurementRecord m;
  m.params = parseStored(s.columnText(0), path, "measurement's params");
  m.paramsHash = s.columnText(1);
  m.samples = s.columnInt(2);
  m.medianNs = s.columnOptionalDouble(3);
  m.meanNs = s.columnOptionalDouble(4);
  m.minNs = s.columnOptionalDouble(5);
  m.maxNs = s.columnOptionalDouble(6);
  m.stddevNs = s.columnOptionalDouble(7);
  m.error = s.columnOptionalText(8);
  m.run = readRun(s, 9);
  return m;
}

// A row of kEntryColumns and the ids its measurements are found by.
struct EntryRow {
  Entry entry;
  std::optional<int64_t> measurementId;
  int64_t segmentId = 0;
  int64_t deviceId = 0;
};

EntryRow readEntryRow(const Statement& s, const std::string& path) {
  EntryRow row;
  Entry& e = row.entry;
  e.id = s.columnInt(0);
  e.paramsSchema = static_cast<int>(s.columnInt(1));
  e.minCompilerVersion = s.columnText(2);
  e.maxCompilerVersion = s.columnOptionalText(3);
  e.params = parseStored(s.columnText(4), path, "entry's params");
  e.paramsHash = s.columnText(5);
  e.origin = s.columnText(6);
  e.createdAt = s.columnText(7);
  row.measurementId = s.columnOptionalInt(8);
  row.segmentId = s.columnInt(9);
  e.segment.structureHash = s.columnText(10);
  e.segment.scheduler = s.columnText(11);
  e.segment.sizes = s.columnText(12);
  e.segment.sizeBucket = s.columnText(13);
  e.segment.fusionIr = s.columnText(14);
  row.deviceId = s.columnInt(15);
  e.device.fingerprint = s.columnText(16);
  e.device.key = s.columnText(17);
  e.device.name = s.columnText(18);
  e.device.computeCapability = static_cast<int>(s.columnInt(19));
  e.device.smCount = static_cast<int>(s.columnInt(20));
  e.device.memoryBytes = s.columnInt(21);
  e.device.l2Bytes = s.columnInt(22);
  e.device.clockKhz = static_cast<int>(s.columnInt(23));
  e.device.spec = parseStored(s.columnText(24), path, "device spec");
  e.run = readRun(s, 25);
  e.portable = s.columnInt(31) != 0;
  return row;
}

// Whether a failed read may be skipped with a note: the file is damaged
// there, or a stored value does not parse (no SQLite call failed). A busy
// file or an I/O error fails the read.
bool skippable(const Connection& connection) {
  return connection.lastErrorIsDamage() || !connection.lastCallFailed();
}

// Refuses to write into a damaged file: SQLite's quick_check (the
// integrity_check without comparing indexes to their tables, linear in the
// file's size) once per writing open. Writing into a file with damaged pages
// can spread the damage, and the writes themselves may be lost.
void refuseDamaged(Connection& connection) {
  const std::string& path = connection.path();
  const std::string recover =
      ". Nothing was written to it. Save what can still be read with "
      "'fuserlab-cli db export --db " +
      path +
      " --output saved.jsonl' "
      "(unreadable entries are skipped with a note), then 'fuserlab-cli db "
      "import --db NEW.db saved.jsonl' and use NEW.db; 'fuserlab-cli db verify "
      "--db " +
      path + "' lists the damage";
  std::string problems;
  try {
    Statement check(connection, "PRAGMA quick_check(3)");
    const Statement::Scope scope = check.begin();
    while (check.step()) {
      const std::string row = check.columnText(0);
      if (row == "ok") continue;
      problems += (problems.empty() ? "" : "; ") + row;
    }
  } catch (const UserError& error) {
    if (!connection.lastErrorIsDamage()) throw;
    problems = error.message();
  }
  if (problems.empty()) return;
  FL_USER_ERROR("the heuristics database '", path,
                "' is damaged: SQLite's "
                "quick_check finds ",
                problems, recover);
}

}  // namespace

struct HeuristicsDatabase::Statements {
  // `current`: the file has the latest schema. A reader of an older file
  // prepares the writes without the columns it lacks (it never runs them).
  Statements(Connection& c, bool current)
      : findDevice(c, "SELECT id FROM devices WHERE fingerprint = ?1"),
        insertDevice(c,
                     "INSERT INTO devices (fingerprint, key, name, "
                     "compute_capability, sm_count, memory_bytes, l2_bytes, "
                     "clock_khz, spec_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                     "?7, ?8, ?9)"),
        findSegment(c,
                    "SELECT id FROM segments WHERE structure_hash = ?1 AND "
                    "scheduler = ?2 AND sizes = ?3"),
        insertSegment(c,
                      "INSERT INTO segments (structure_hash, scheduler, sizes, "
                      "size_bucket, fusion_ir) VALUES (?1, ?2, ?3, ?4, ?5)"),
        findRun(c,
                "SELECT id FROM tuning_runs WHERE compiler_version = ?1 AND "
                "created_at = ?2 AND command = ?3 AND host IS ?4 AND "
                "cuda_version IS ?5 AND driver_version IS ?6"),
        insertRun(c,
                  "INSERT INTO tuning_runs (compiler_version, created_at, "
                  "command, host, cuda_version, driver_version) VALUES (?1, "
                  "?2, ?3, ?4, ?5, ?6)"),
        findMeasurement(c,
                        "SELECT id FROM measurements WHERE run_id = ?1 AND "
                        "segment_id = ?2 AND device_id = ?3 AND params_hash = "
                        "?4 AND samples = ?5 AND median_ns IS ?6 AND error IS "
                        "?7"),
        insertMeasurement(c,
                          "INSERT INTO measurements (run_id, segment_id, "
                          "device_id, params_json, params_hash, samples, "
                          "median_ns, mean_ns, min_ns, max_ns, stddev_ns, "
                          "error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                          "?10, ?11, ?12)"),
        measurementById(c, std::string(kMeasurementColumns) + "WHERE m.id = ?1"),
        measurementsOf(c, std::string(kMeasurementColumns) +
                              "WHERE m.segment_id = ?1 AND m.device_id = ?2 "
                              "ORDER BY m.id"),
        findEntry(c,
                  "SELECT id FROM entries WHERE segment_id = ?1 AND device_id "
                  "= ?2 AND params_schema = ?3"),
        insertEntry(c, current ? "INSERT INTO entries (segment_id, device_id, "
                                 "params_schema, min_compiler_version, "
                                 "max_compiler_version, params_json, params_hash, origin, "
                                 "run_id, measurement_id, created_at, portable) VALUES (?1, "
                                 "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                               : "SELECT 1"),
        // A replaced entry keeps its mark (db mark-portable --clear removes it).
        updateEntry(c, current ? "UPDATE entries SET min_compiler_version = ?2, "
                                 "max_compiler_version = ?3, params_json = ?4, params_hash "
                                 "= ?5, origin = ?6, run_id = ?7, measurement_id = ?8, "
                                 "created_at = ?9, portable = max(portable, ?10) WHERE id = ?1"
                               : "SELECT 1"),
        setPortable(c, current ? "UPDATE entries SET portable = ?2 WHERE (?1 IS NULL OR id = ?1) "
                                 "AND portable != ?2"
                               : "SELECT 1"),
        allEntries(c, entryColumns(current) + "WHERE e.id >= ?1 ORDER BY e.id"),
        nextEntryId(c, "SELECT id FROM entries WHERE id >= ?1 ORDER BY id LIMIT 1"),
        entryById(c, entryColumns(current) + "WHERE e.id = ?1"),
        deleteEntry(c, "DELETE FROM entries WHERE id = ?1"),
        deleteOrphanMeasurements(
            c,
            "DELETE FROM measurements WHERE id NOT IN (SELECT measurement_id "
            "FROM entries WHERE measurement_id IS NOT NULL) AND NOT EXISTS "
            "(SELECT 1 FROM entries e WHERE e.segment_id = "
            "measurements.segment_id AND e.device_id = measurements.device_id)"),
        deleteOrphanSegments(c,
                             "DELETE FROM segments WHERE id NOT IN (SELECT segment_id FROM "
                             "entries) AND id NOT IN (SELECT segment_id FROM measurements)"),
        deleteOrphanDevices(c,
                            "DELETE FROM devices WHERE id NOT IN (SELECT device_id FROM "
                            "entries) AND id NOT IN (SELECT device_id FROM measurements)"),
        deleteOrphanRuns(c,
                         "DELETE FROM tuning_runs WHERE id NOT IN (SELECT run_id FROM "
                         "entries) AND id NOT IN (SELECT run_id FROM measurements)") {}

  Statement findDevice, insertDevice, findSegment, insertSegment, findRun, insertRun,
      findMeasurement, insertMeasurement, measurementById, measurementsOf, findEntry, insertEntry,
      updateEntry, setPortable, allEntries, nextEntryId, entryById, deleteEntry,
      deleteOrphanMeasurements, deleteOrphanSegments, deleteOrphanDevices, deleteOrphanRuns;
};

HeuristicsDatabase::HeuristicsDatabase(const std::string& path, Access access) {
  connection_ = std::make_unique<Connection>(path, access == Access::Read
                                                       ? Connection::Mode::ReadOnly
                                                       : Connection::Mode::ReadWriteCreate);
  if (access == Access::Write) refuseDamaged(*connection_);
  prepareSchema(*connection_);
  statements_ =
      std::make_unique<Statements>(*connection_, schemaVersion(*connection_) == kSchemaVersion);
}

HeuristicsDatabase::~HeuristicsDatabase() = default;

int64_t HeuristicsDatabase::deviceId(const DeviceRecord& device) {
  Statement& find = statements_->findDevice;
  {
    auto scope = find.begin();
    find.bind(1, device.fingerprint);
    if (find.step()) return find.columnInt(0);
  }
  Statement& insert = statements_->insertDevice;
  auto scope = insert.begin();
  insert.bind(1, device.fingerprint).bind(2, device.key).bind(3, device.name);
  insert.bind(4, device.computeCapability).bind(5, device.smCount);
  insert.bind(6, device.memoryBytes).bind(7, device.l2Bytes);
  insert.bind(8, device.clockKhz).bind(9, device.spec.dump(-1));
  insert.run();
  return connection_->lastInsertRowId();
}

int64_t HeuristicsDatabase::segmentId(const SegmentRecord& segment) {
  Statement& find = statements_->findSegment;
  {
    auto scope = find.begin();
    find.bind(1, segment.structureHash).bind(2, segment.scheduler);
    find.bind(3, segment.sizes);
    if (find.step()) return find.columnInt(0);
  }
  Statement& insert = statements_->insertSegment;
  auto scope = insert.begin();
  insert.bind(1, segment.structureHash).bind(2, segment.scheduler);
  insert.bind(3, segment.sizes).bind(4, segment.sizeBucket);
  insert.bind(5, segment.fusionIr);
  insert.run();
  return connection_->lastInsertRowId();
}

int64_t HeuristicsDatabase::runId(const RunRecord& run) {
  for (Statement* s : {&statements_->findRun, &statements_->insertRun}) {
    auto scope = s->begin();
    s->bind(1, run.compilerVersion).bind(2, run.createdAt).bind(3, run.command);
    s->bind(4, run.host).bind(5, run.cudaVersion).bind(6, run.driverVersion);
    if (s == &statements_->findRun) {
      if (s->step()) return s->columnInt(0);
    } else {
      s->run();
    }
  }
  return connection_->lastInsertRowId();
}

int64_t HeuristicsDatabase::measurementId(int64_t segment, int64_t device,
                                          const MeasurementRecord& m) {
  const int64_t run = runId(m.run);
  Statement& find = statements_->findMeasurement;
  {
    auto scope = find.begin();
    find.bind(1, run).bind(2, segment).bind(3, device).bind(4, m.paramsHash);
    find.bind(5, m.samples).bind(6, m.medianNs).bind(7, m.error);
    if (find.step()) return find.columnInt(0);
  }
  Statement& insert = statements_->insertMeasurement;
  auto scope = insert.begin();
  insert.bind(1, run).bind(2, segment).bind(3, device);
  insert.bind(4, m.params.dump(-1)).bind(5, m.paramsHash).bind(6, m.samples);
  insert.bind(7, m.medianNs).bind(8, m.meanNs).bind(9, m.minNs);
  insert.bind(10, m.maxNs).bind(11, m.stddevNs).bind(12, m.error);
  insert.run();
  return connection_->lastInsertRowId();
}

int64_t HeuristicsDatabase::storeMeasurement(const SegmentRecord& segment,
                                             const DeviceRecord& device,
                                             const MeasurementRecord& m) {
  return measurementId(segmentId(segment), deviceId(device), m);
}

std::vector<MeasurementRecord> HeuristicsDatabase::measurementsFor(const SegmentRecord& segment,
                                                                   const DeviceRecord& device) {
  return measurementsOf(segmentId(segment), deviceId(device));
}

int64_t HeuristicsDatabase::store(const Entry& entry) {
  const int64_t segment = segmentId(entry.segment);
  const int64_t device = deviceId(entry.device);
  const int64_t run = runId(entry.run);
  std::optional<int64_t> chosen;
  if (entry.measurement) chosen = measurementId(segment, device, *entry.measurement);
  for (const auto& variant : entry.variants) measurementId(segment, device, variant);

  std::optional<int64_t> existing;
  {
    Statement& find = statements_->findEntry;
    auto scope = find.begin();
    find.bind(1, segment).bind(2, device).bind(3, entry.paramsSchema);
    if (find.step()) existing = find.columnInt(0);
  }
  Statement& s = existing ? statements_->updateEntry : statements_->insertEntry;
  auto scope = s.begin();
  if (existing) {
    s.bind(1, *existing).bind(2, entry.minCompilerVersion);
    s.bind(3, entry.maxCompilerVersion).bind(4, entry.params.dump(-1));
    s.bind(5, entry.paramsHash).bind(6, entry.origin).bind(7, run);
    s.bind(8, chosen).bind(9, entry.createdAt);
    s.bind(10, int64_t{entry.portable ? 1 : 0});
    s.run();
    return *existing;
  }
  s.bind(1, segment).bind(2, device).bind(3, entry.paramsSchema);
  s.bind(4, entry.minCompilerVersion).bind(5, entry.maxCompilerVersion);
  s.bind(6, entry.params.dump(-1)).bind(7, entry.paramsHash);
  s.bind(8, entry.origin).bind(9, run).bind(10, chosen);
  s.bind(11, entry.createdAt).bind(12, int64_t{entry.portable ? 1 : 0});
  s.run();
  return connection_->lastInsertRowId();
}

int64_t HeuristicsDatabase::setPortable(std::optional<int64_t> id, bool portable) {
  Statement& s = statements_->setPortable;
  auto scope = s.begin();
  s.bind(1, id).bind(2, int64_t{portable ? 1 : 0});
  s.run();
  return connection_->changes();
}

std::vector<MeasurementRecord> HeuristicsDatabase::measurementsOf(int64_t segment, int64_t device,
                                                                  std::vector<std::string>* notes) {
  std::vector<MeasurementRecord> result;
  Statement& s = statements_->measurementsOf;
  auto scope = s.begin();
  s.bind(1, segment).bind(2, device);
  const std::string which = "a measurement of segment row " + std::to_string(segment) +
                            " on device row " + std::to_string(device);
  while (true) {
    try {
      if (!s.step()) break;
    } catch (const UserError& error) {
      if (notes == nullptr || !connection_->lastErrorIsDamage()) throw;
      notes->push_back(which + " could not be read, nor any after it (" + error.message() +
                       "); skipped");
      break;
    }
    try {
      result.push_back(readMeasurement(s, path()));
    } catch (const UserError& error) {
      if (notes == nullptr) throw;
      notes->push_back(which + " skipped: " + error.message());
    }
  }
  return result;
}

std::optional<MeasurementRecord> HeuristicsDatabase::measurement(int64_t id) {
  Statement& s = statements_->measurementById;
  auto scope = s.begin();
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return readMeasurement(s, path());
}

namespace {

std::string fromId(int64_t id) {
  return id == std::numeric_limits<int64_t>::min() ? std::string("the first")
                                                   : "id " + std::to_string(id);
}

}  // namespace

std::optional<int64_t> HeuristicsDatabase::resumeAfterDamage(int64_t from, const std::string& why) {
  // The next id at or after `at` in the entries table alone; the outer
  // nullopt when that read fails on damage too.
  auto probe = [&](int64_t at) -> std::optional<std::optional<int64_t>> {
    Statement& s = statements_->nextEntryId;
    auto scope = s.begin();
    s.bind(1, at);
    try {
      if (s.step()) return std::optional<int64_t>(s.columnInt(0));
      return std::optional<int64_t>();
    } catch (const UserError&) {
      if (!connection_->lastErrorIsDamage()) throw;
      return std::nullopt;
    }
  };
  constexpr int64_t kLast = std::numeric_limits<int64_t>::max();
  if (auto next = probe(from)) {
    if (!*next) {
      readNotes_.push_back("reading the entries from " + fromId(from) + " on failed (" + why +
                           "); skipped");
      return std::nullopt;
    }
    // The entries table reads: the entry's segment, device, run or row
    // content is what is damaged.
    readNotes_.push_back("entry " + std::to_string(**next) + " could not be read (" + why +
                         "); skipped");
    if (**next == kLast) return std::nullopt;
    return **next + 1;
  }
  // The entries table itself is damaged from `from` on: find the first id
  // it reads from again, doubling the stride, then halving the gap (ids in
  // unsigned arithmetic: the gap from the first id may pass int64's range).
  int64_t bad = from;
  int64_t good = from;
  for (uint64_t stride = 1;; stride *= 2) {
    const uint64_t room = static_cast<uint64_t>(kLast) - static_cast<uint64_t>(bad);
    const int64_t at =
        stride >= room ? kLast : static_cast<int64_t>(static_cast<uint64_t>(bad) + stride);
    if (probe(at)) {
      good = at;
      break;
    }
    if (at == kLast) {
      readNotes_.push_back("the entries from " + fromId(from) + " on are on damaged pages (" + why +
                           "); skipped");
      return std::nullopt;
    }
    bad = at;
  }
  while (static_cast<uint64_t>(good) - static_cast<uint64_t>(bad) > 1) {
    const int64_t middle =
        static_cast<int64_t>(static_cast<uint64_t>(bad) +
                             (static_cast<uint64_t>(good) - static_cast<uint64_t>(bad)) / 2);
    if (probe(middle)) {
      good = middle;
    } else {
      bad = middle;
    }
  }
  readNotes_.push_back("the entries with ids from " + fromId(from) + " to " +
                       std::to_string(good - 1) + " are on a damaged page (" + why + "); skipped");
  return good;
}

std::vector<Entry> HeuristicsDatabase::readEntries(bool withVariants, std::optional<int64_t> id) {
  std::vector<EntryRow> rows;
  // One entry asked for by id fails whole; a scan of all of them skips what
  // it cannot read, with a note.
  std::vector<std::string>* notes = nullptr;
  if (id) {
    Statement& s = statements_->entryById;
    auto scope = s.begin();
    s.bind(1, *id);
    while (s.step()) rows.push_back(readEntryRow(s, path()));
  } else {
    readNotes_.clear();
    notes = &readNotes_;
    std::optional<int64_t> from = std::numeric_limits<int64_t>::min();
    while (from) {
      Statement& s = statements_->allEntries;
      auto scope = s.begin();
      s.bind(1, *from);
      std::string damage;
      try {
        while (s.step()) {
          const int64_t rowId = s.columnInt(0);
          from = rowId == std::numeric_limits<int64_t>::max() ? std::nullopt
                                                              : std::optional<int64_t>(rowId + 1);
          try {
            rows.push_back(readEntryRow(s, path()));
          } catch (const UserError& error) {
            readNotes_.push_back("entry " + std::to_string(rowId) + " skipped: " + error.message());
          }
        }
        break;
      } catch (const UserError& error) {
        if (!connection_->lastErrorIsDamage()) throw;
        damage = error.message();
      }
      if (from) from = resumeAfterDamage(*from, damage);
    }
  }
  std::vector<Entry> result;
  result.reserve(rows.size());
  for (EntryRow& row : rows) {
    try {
      if (row.measurementId) row.entry.measurement = measurement(*row.measurementId);
    } catch (const UserError& error) {
      if (notes == nullptr || !skippable(*connection_)) throw;
      notes->push_back(row.entry.summary() + ": its chosen measurement could not be read (" +
                       error.message() + "); read without it");
    }
    if (withVariants) {
      row.entry.variants = measurementsOf(row.segmentId, row.deviceId, notes);
    }
    result.push_back(std::move(row.entry));
  }
  return result;
}

std::vector<Entry> HeuristicsDatabase::entries(bool withVariants) {
  return readEntries(withVariants, std::nullopt);
}

std::optional<Entry> HeuristicsDatabase::entry(int64_t id, bool withVariants) {
  auto found = readEntries(withVariants, id);
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
}

std::optional<Entry> HeuristicsDatabase::entryWithKey(const Entry& like) {
  std::optional<int64_t> segment, device;
  {
    Statement& s = statements_->findSegment;
    auto scope = s.begin();
    s.bind(1, like.segment.structureHash).bind(2, like.segment.scheduler);
    s.bind(3, like.segment.sizes);
    if (s.step()) segment = s.columnInt(0);
  }
  {
    Statement& s = statements_->findDevice;
    auto scope = s.begin();
    s.bind(1, like.device.fingerprint);
    if (s.step()) device = s.columnInt(0);
  }
  if (!segment || !device) return std::nullopt;
  std::optional<int64_t> id;
  {
    Statement& s = statements_->findEntry;
    auto scope = s.begin();
    s.bind(1, *segment).bind(2, *device).bind(3, like.paramsSchema);
    if (s.step()) id = s.columnInt(0);
  }
  if (!id) return std::nullopt;
  return entry(*id, true);
}

bool HeuristicsDatabase::remove(int64_t id) {
  Statement& s = statements_->deleteEntry;
  auto scope = s.begin();
  s.bind(1, id);
  s.run();
  return connection_->changes() > 0;
}

int64_t HeuristicsDatabase::removeUnreferenced() {
  int64_t removed = 0;
  for (Statement* s : {&statements_->deleteOrphanMeasurements, &statements_->deleteOrphanRuns,
                       &statements_->deleteOrphanSegments, &statements_->deleteOrphanDevices}) {
    auto scope = s->begin();
    s->run();
    removed += connection_->changes();
  }
  return removed;
}

std::vector<std::pair<std::string, int64_t>> HeuristicsDatabase::tableCounts() {
  std::vector<std::pair<std::string, int64_t>> counts;
  // Table names are ours, not user input.
  for (const char* table : {"devices", "segments", "tuning_runs", "measurements", "entries"}) {
    counts.emplace_back(table, connection_->queryInt(std::string("SELECT count(*) FROM ") + table));
  }
  return counts;
}

}  // namespace fuserlab::db
