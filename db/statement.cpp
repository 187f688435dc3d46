#include "db/statement.h"

#include <sqlite3.h>

namespace fuserlab::db {

Statement::Scope::~Scope() { statement_->reset(); }

Statement::Statement(Connection& connection, std::string_view sql)
    : connection_(connection), sql_(sql) {
  connection_.check(
      sqlite3_prepare_v3(connection_.handle(), sql_.c_str(), static_cast<int>(sql_.size()),
                         SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr),
      ("preparing '" + sql_ + "'").c_str());
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement::Scope Statement::begin() {
  reset();
  return Scope(*this);
}

void Statement::reset() noexcept {
  // sqlite3_reset repeats the last step's error, which step() has reported.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Statement& Statement::bind(int index, int64_t value) {
  connection_.check(sqlite3_bind_int64(stmt_, index, value), "binding a value");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  connection_.check(sqlite3_bind_double(stmt_, index, value), "binding a value");
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  connection_.check(
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
      "binding a value");
  return *this;
}

Statement& Statement::bindNull(int index) {
  connection_.check(sqlite3_bind_null(stmt_, index), "binding a value");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  connection_.check(rc, ("running '" + sql_ + "'").c_str());
  return false;
}

void Statement::run() {
  while (step()) {
  }
}

int Statement::columnCount() const { return sqlite3_column_count(stmt_); }

bool Statement::isNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::columnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::columnDouble(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::columnText(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}

std::optional<int64_t> Statement::columnOptionalInt(int column) const {
  if (isNull(column)) return std::nullopt;
  return columnInt(column);
}

std::optional<double> Statement::columnOptionalDouble(int column) const {
  if (isNull(column)) return std::nullopt;
  return columnDouble(column);
}

std::optional<std::string> Statement::columnOptionalText(int column) const {
  if (isNull(column)) return std::nullopt;
  return columnText(column);
}

}  // namespace fuserlab::db
