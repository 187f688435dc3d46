// Statement: one SQL statement, prepared once when the owner is built and
// executed many times with bound values (never values spliced into SQL).
// begin() starts an execution and returns a guard that resets the statement
// when it goes, so no half-read SELECT keeps a read lock on the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "db/connection.h"

struct sqlite3_stmt;

namespace fuserlab::db {

class Statement {
 public:
  //! Resets the statement (and clears its bindings) when it goes.
  class Scope {
   public:
    explicit Scope(Statement& statement) : statement_(&statement) {}
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Statement* statement_;
  };

  Statement(Connection& connection, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  //! Starts an execution: the statement is reset and its bindings cleared.
  [[nodiscard]] Scope begin();

  // Parameters are 1-based, as in SQL's ?1, ?2.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, int64_t{value}); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bindNull(int index);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bindNull(index);
  }

  //! Runs to the next row: true if there is one, false when done.
  bool step();
  //! Runs a statement that returns no rows (INSERT, UPDATE, DELETE).
  void run();

  // Columns are 0-based, as SQLite's.
  int columnCount() const;
  bool isNull(int column) const;
  int64_t columnInt(int column) const;
  double columnDouble(int column) const;
  std::string columnText(int column) const;
  std::optional<int64_t> columnOptionalInt(int column) const;
  std::optional<double> columnOptionalDouble(int column) const;
  std::optional<std::string> columnOptionalText(int column) const;

 private:
  void reset() noexcept;

  Connection& connection_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

}  // namespace fuserlab::db
