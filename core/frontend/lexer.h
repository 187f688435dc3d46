// The lexer turns a FusionDefinition script into Python tokens, as CPython's
// tokenizer does for the subset of Python that nvFuser repro scripts use.
// A NEWLINE token ends each logical line: physical lines are joined inside
// (), [] and {} and after a trailing backslash, and blank or comment-only
// lines produce nothing. Leading whitespace becomes INDENT/DEDENT tokens, which
// always pair up before the final END_OF_FILE. Positions are 1-based and count
// bytes, so a tab is one column.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/error.h"

namespace fuserlab::frontend {

//! A script's text split into lines, to give a (line, column) its file name
//! and line text.
class SourceText {
 public:
  SourceText(std::string_view source, std::string fileName);

  //! The source with "\r\n" and "\r" turned into "\n" and a leading UTF-8
  //! byte-order mark dropped; the lexer reads this text.
  const std::string& text() const { return text_; }
  const std::string& fileName() const { return fileName_; }

  //! The text of 1-based line `line` without its newline; empty past the end.
  std::string_view line(int line) const;

  //! The location of a 1-based position, carrying the whole line's text.
  SourceLocation locate(int line, int column) const;

 private:
  std::string fileName_;
  std::string text_;
  std::vector<std::size_t> lineStarts_;
};

enum class TokenKind {
  kName,
  kKeyword,  //!< A Python keyword, `True`, `False` and `None` included.
  kNumber,
  kString,
  kOperator,  //!< Operators and punctuation: `(`, `->`, `**`, `=`, `,` ...
  kNewline,   //!< The end of a logical line.
  kIndent,
  kDedent,
  kEndOfFile,
};

//! One token with its 1-based position.
struct Token {
  TokenKind kind = TokenKind::kEndOfFile;
  //! The token as written; for kString the decoded value instead.
  std::string text;
  int line = 1;
  int column = 1;
  //! One past the token's last character (a string may span lines).
  int endLine = 1;
  int endColumn = 1;

  //! kNumber: both values are set; `isInt` says whether it was written as an
  //! integer (`2`) or as a float (`2.0`, `1e-05`).
  std::int64_t intValue = 0;
  double floatValue = 0.0;
  bool isInt = false;

  //! kString: the prefix in lower case ("", "r", "b", "f", "rb", ...).
  std::string stringPrefix;
};

//! How an error message names a token: "name 'x'", "')'", "end of line".
std::string describe(const Token& token);

//! Whether `word` is a Python keyword (and so cannot be a name).
bool isKeyword(std::string_view word);

//! Produces the tokens of a script one at a time, so that the first error in
//! reading order is the one reported.
class Lexer {
 public:
  //! `source` must outlive the lexer.
  explicit Lexer(const SourceText& source);

  //! The next token; kEndOfFile again and again at the end. Throws
  //! UserError, located at the offending character, on malformed input.
  Token next();

 private:
  struct Bracket {
    char open;
    int line;
    int column;
  };
  // Indentation measured twice, as CPython does: with tabs to multiples of 8
  // and with tabs as one column. Both must order lines the same way, or the
  // meaning would depend on the tab width.
  struct IndentLevel {
    int width;
    int altWidth;
  };

  void scan();
  bool scanIndentation();
  void scanName();
  void scanNumber();
  void scanString(std::size_t start, std::string prefix);
  void scanOperator();
  void finish();

  void startNewLine();
  int column(std::size_t offset) const;
  Token makeToken(TokenKind kind, int line, int column) const;
  Token endToken(TokenKind kind) const;
  void push(Token token);
  [[noreturn]] void fail(int line, int column, const std::string& message) const;

  const SourceText& source_;
  const std::string& text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::size_t lineStart_ = 0;
  bool atLineStart_ = true;
  bool lineHasTokens_ = false;
  bool finished_ = false;
  int lastEndLine_ = 1;
  int lastEndColumn_ = 1;
  std::vector<Bracket> brackets_;
  std::vector<IndentLevel> indents_;
  std::deque<Token> pending_;
};

//! All tokens of a script, ending with kEndOfFile (for tests and tools).
std::vector<Token> tokenize(std::string_view source, const std::string& fileName);

}  // namespace fuserlab::frontend
