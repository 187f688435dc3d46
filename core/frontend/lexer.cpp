#include "core/frontend/lexer.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>

namespace fuserlab::frontend {
namespace {

constexpr std::string_view kKeywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// Longest first, so that "**=" wins over "**" and "**" over "*".
constexpr std::string_view kOperators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "==", "!=", "<=",
    ">=",  "<<",  ">>",  "+=",  "-=",  "*=", "/=", "%=", "@=", "&=", "|=", "^=",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ";",  ".",  "@",  "=",
    "+",   "-",   "*",   "/",   "%",   "<",  ">",  "&",  "|",  "^",  "~"};

// Only the spellings CPython accepts; "bf" and "ub" are not among them.
constexpr std::string_view kStringPrefixes[] = {"r", "u", "b", "f", "br", "rb", "fr", "rf"};

// Longer lines are cut in token descriptions; an error shows the line anyway.
constexpr std::size_t kMaxDescribedBytes = 24;

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isOctalDigit(char c) { return c >= '0' && c <= '7'; }
bool isBinaryDigit(char c) { return c == '0' || c == '1'; }
bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }

int digitValue(char c) {
  if (isDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

std::string lowerCase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

void appendUtf8(std::string& out, std::uint32_t codePoint) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xC0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}

// Printable ASCII stays, anything else becomes '?', and long text is cut.
std::string shortened(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, kMaxDescribedBytes)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (text.size() > kMaxDescribedBytes) out += "...";
  return out;
}

std::string describeCharacter(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return detail::concat("character '", c, "'");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex = {kHex[byte >> 4], kHex[byte & 0xF]};
  if (byte >= 0x80) {
    return "non-ASCII byte 0x" + hex +
           " (only strings and comments may hold "
           "non-ASCII text)";
  }
  return "control byte 0x" + hex;
}

}  // namespace

SourceText::SourceText(std::string_view source, std::string fileName)
    : fileName_(std::move(fileName)) {
  if (source.substr(0, 3) == "\xEF\xBB\xBF") source.remove_prefix(3);
  text_.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      text_ += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      text_ += source[i];
    }
  }
  lineStarts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
  }
}

std::string_view SourceText::line(int line) const {
  if (line < 1 || line > static_cast<int>(lineStarts_.size())) return {};
  std::size_t start = lineStarts_[line - 1];
  std::size_t end =
      line < static_cast<int>(lineStarts_.size()) ? lineStarts_[line] - 1 : text_.size();
  return std::string_view(text_).substr(start, end - start);
}

SourceLocation SourceText::locate(int line, int column) const {
  return SourceLocation{fileName_, line, column, std::string(this->line(line))};
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kName: return "name '" + shortened(token.text) + "'";
    case TokenKind::kKeyword: return "keyword '" + token.text + "'";
    case TokenKind::kNumber: return "number " + shortened(token.text);
    case TokenKind::kString: return "string '" + shortened(token.text) + "'";
    case TokenKind::kOperator: return "'" + token.text + "'";
    case TokenKind::kNewline: return "end of line";
    case TokenKind::kIndent: return "an indented line";
    case TokenKind::kDedent: return "the end of an indented block";
    case TokenKind::kEndOfFile: return "end of file";
  }
  return "a token";
}

bool isKeyword(std::string_view word) {
  return std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords);
}

Lexer::Lexer(const SourceText& source) : source_(source), text_(source.text()) {
  indents_.push_back({0, 0});
}

Token Lexer::next() {
  while (pending_.empty()) scan();
  Token token = std::move(pending_.front());
  pending_.pop_front();
  return token;
}

int Lexer::column(std::size_t offset) const { return static_cast<int>(offset - lineStart_) + 1; }

Token Lexer::makeToken(TokenKind kind, int line, int column) const {
  Token token;
  token.kind = kind;
  token.line = line;
  token.column = column;
  token.endLine = line_;
  token.endColumn = this->column(pos_);
  return token;
}

void Lexer::push(Token token) {
  if (token.kind != TokenKind::kNewline && token.kind != TokenKind::kIndent &&
      token.kind != TokenKind::kDedent && token.kind != TokenKind::kEndOfFile) {
    lineHasTokens_ = true;
    lastEndLine_ = token.endLine;
    lastEndColumn_ = token.endColumn;
  }
  pending_.push_back(std::move(token));
}

void Lexer::fail(int line, int column, const std::string& message) const {
  throw UserError(message, source_.locate(line, column));
}

void Lexer::startNewLine() {
  ++line_;
  lineStart_ = pos_;
}

void Lexer::scan() {
  if (finished_) {
    pending_.push_back(endToken(TokenKind::kEndOfFile));
    return;
  }
  if (atLineStart_ && brackets_.empty() && !scanIndentation()) return;

  while (pos_ < text_.size() &&
         (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\f')) {
    ++pos_;
  }
  if (pos_ >= text_.size()) {
    finish();
    return;
  }

  char c = text_[pos_];
  if (c == '#') {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  } else if (c == '\n') {
    if (brackets_.empty() && lineHasTokens_) {
      pending_.push_back(endToken(TokenKind::kNewline));
      lineHasTokens_ = false;
    }
    ++pos_;
    startNewLine();
    if (brackets_.empty()) atLineStart_ = true;
  } else if (c == '\\') {
    if (pos_ + 1 >= text_.size()) {
      fail(line_, column(pos_), "expected a line after the continuation '\\', found end of file");
    }
    if (text_[pos_ + 1] != '\n') {
      fail(line_, column(pos_ + 1),
           "expected end of line after the continuation '\\', found " +
               describeCharacter(text_[pos_ + 1]));
    }
    pos_ += 2;
    startNewLine();
  } else if (isNameStart(c)) {
    scanName();
  } else if (isDigit(c) || (c == '.' && pos_ + 1 < text_.size() && isDigit(text_[pos_ + 1]))) {
    scanNumber();
  } else if (c == '\'' || c == '"') {
    scanString(pos_, "");
  } else {
    scanOperator();
  }
}

// Reads the leading whitespace of a line. Returns false when the line is blank
// or holds only a comment: it is skipped and produces no tokens.
bool Lexer::scanIndentation() {
  std::size_t p = pos_;
  int width = 0;
  int altWidth = 0;
  for (; p < text_.size(); ++p) {
    char c = text_[p];
    if (c == ' ') {
      ++width;
      ++altWidth;
    } else if (c == '\t') {
      width = (width / 8 + 1) * 8;
      ++altWidth;
    } else if (c == '\f') {
      width = altWidth = 0;  // CPython resets the count at a form feed.
    } else {
      break;
    }
  }
  if (p >= text_.size()) {
    pos_ = p;
    atLineStart_ = false;
    return true;
  }
  if (text_[p] == '\n' || text_[p] == '#') {
    std::size_t end = text_.find('\n', p);
    if (end == std::string::npos) {
      pos_ = text_.size();
    } else {
      pos_ = end + 1;
      startNewLine();
    }
    return false;
  }

  pos_ = p;
  atLineStart_ = false;
  int line = line_;
  int col = column(p);
  auto inconsistent = [&] {
    fail(line, col,
         "inconsistent use of tabs and spaces in indentation: the block's "
         "depth would depend on the tab width");
  };
  IndentLevel top = indents_.back();
  if (width == top.width) {
    if (altWidth != top.altWidth) inconsistent();
  } else if (width > top.width) {
    if (altWidth <= top.altWidth) inconsistent();
    indents_.push_back({width, altWidth});
    push(makeToken(TokenKind::kIndent, line, col));
    pending_.back().endColumn = col;
  } else {
    while (indents_.size() > 1 && width < indents_.back().width) {
      indents_.pop_back();
      Token dedent = makeToken(TokenKind::kDedent, line, col);
      dedent.endColumn = col;
      push(std::move(dedent));
    }
    if (width != indents_.back().width) {
      fail(line, col,
           "unindent does not match any outer indentation level: expected " +
               std::to_string(indents_.back().width) + " columns of indentation, found " +
               std::to_string(width));
    }
    if (altWidth != indents_.back().altWidth) inconsistent();
  }
  return true;
}

void Lexer::scanName() {
  std::size_t start = pos_;
  while (pos_ < text_.size() && isNameChar(text_[pos_])) ++pos_;
  std::string_view word = std::string_view(text_).substr(start, pos_ - start);
  if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
    std::string prefix = lowerCase(word);
    if (std::find(std::begin(kStringPrefixes), std::end(kStringPrefixes), prefix) !=
        std::end(kStringPrefixes)) {
      scanString(start, prefix == "u" ? "" : prefix);
      return;
    }
  }
  Token token =
      makeToken(isKeyword(word) ? TokenKind::kKeyword : TokenKind::kName, line_, column(start));
  token.text = std::string(word);
  push(std::move(token));
}

void Lexer::scanNumber() {
  std::size_t start = pos_;
  int startColumn = column(start);
  auto readDigits = [&](bool (*accepts)(char)) {
    std::size_t first = pos_;
    while (pos_ < text_.size()) {
      if (accepts(text_[pos_])) {
        ++pos_;
      } else if (text_[pos_] == '_' && pos_ > first && pos_ + 1 < text_.size() &&
                 accepts(text_[pos_ + 1])) {
        pos_ += 2;
      } else {
        break;
      }
    }
    return pos_ > first;
  };
  auto rejectTrailingNameCharacter = [&](std::string_view kind) {
    if (pos_ < text_.size() && isNameChar(text_[pos_])) {
      fail(line_, column(pos_),
           detail::concat("invalid ", kind, " literal: unexpected ", describeCharacter(text_[pos_]),
                          " in the number"));
    }
  };

  Token token = makeToken(TokenKind::kNumber, line_, startColumn);
  int base = 10;
  bool isFloat = false;
  std::size_t digitsStart = start;
  if (text_[pos_] == '0' && pos_ + 1 < text_.size() &&
      std::string_view("xXoObB").find(text_[pos_ + 1]) != std::string::npos) {
    char marker = static_cast<char>(text_[pos_ + 1] | 0x20);
    base = marker == 'x' ? 16 : marker == 'o' ? 8 : 2;
    std::string_view kind = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    pos_ += 2;
    // CPython allows one underscore right after the base marker: 0x_ff.
    if (pos_ + 1 < text_.size() && text_[pos_] == '_') ++pos_;
    digitsStart = pos_;
    bool hasDigits = readDigits(base == 16 ? isHexDigit : base == 8 ? isOctalDigit : isBinaryDigit);
    if (!hasDigits) {
      fail(line_, column(pos_),
           detail::concat("invalid ", kind, " literal: expected a digit after '",
                          text_.substr(start, 2), "'"));
    }
    if (pos_ < text_.size() && isDigit(text_[pos_])) {
      fail(line_, column(pos_),
           detail::concat("invalid digit '", text_[pos_], "' in ", kind, " literal"));
    }
    rejectTrailingNameCharacter(kind);
  } else {
    bool hasIntegerPart = readDigits(isDigit);
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      isFloat = true;
      readDigits(isDigit);
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t exponent = pos_ + 1;
      if (exponent < text_.size() && (text_[exponent] == '+' || text_[exponent] == '-')) {
        ++exponent;
      }
      if (exponent < text_.size() && isDigit(text_[exponent])) {
        pos_ = exponent;
        readDigits(isDigit);
        isFloat = true;
      } else {
        fail(line_, column(exponent),
             "invalid decimal literal: expected the exponent's digits after "
             "'e'");
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == 'j' || text_[pos_] == 'J')) {
      fail(line_, startColumn,
           "complex number literals are not part of the FusionDefinition "
           "dialect");
    }
    rejectTrailingNameCharacter("decimal");
    bool onlyZeros = std::all_of(text_.begin() + start, text_.begin() + pos_,
                                 [](char d) { return d == '0' || d == '_'; });
    if (!isFloat && hasIntegerPart && text_[start] == '0' && !onlyZeros) {
      fail(line_, startColumn,
           "leading zeros in decimal integer literals are not permitted; use "
           "an 0o prefix for octal integers");
    }
  }

  token.text = text_.substr(start, pos_ - start);
  token.endLine = line_;
  token.endColumn = column(pos_);
  std::string digits;
  for (std::size_t i = digitsStart; i < pos_; ++i) {
    if (text_[i] != '_') digits += text_[i];
  }
  if (isFloat) {
    double value = 0.0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error == std::errc::result_out_of_range) {
      value = std::strtod(digits.c_str(), nullptr);  // inf or 0, as Python
    } else if (error != std::errc() || end != digits.data() + digits.size()) {
      fail(line_, startColumn, "invalid float literal '" + token.text + "'");
    }
    token.floatValue = value;
    token.intValue = 0;
    token.isInt = false;
  } else {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    std::int64_t value = 0;
    for (char c : digits) {
      int digit = digitValue(c);
      if (value > (kMax - digit) / base) {
        fail(line_, startColumn,
             "integer literal " + shortened(token.text) + " does not fit in 64 bits");
      }
      value = value * base + digit;
    }
    token.intValue = value;
    token.floatValue = static_cast<double>(value);
    token.isInt = true;
  }
  push(std::move(token));
}

void Lexer::scanString(std::size_t start, std::string prefix) {
  int startLine = line_;
  int startColumn = column(start);
  bool raw = prefix.find('r') != std::string::npos;
  bool bytes = prefix.find('b') != std::string::npos;
  // pos_ is at the opening quote, past any prefix.
  char quote = text_[pos_];
  bool triple = pos_ + 2 < text_.size() && text_[pos_ + 1] == quote && text_[pos_ + 2] == quote;
  pos_ += triple ? 3 : 1;

  auto unterminated = [&] {
    fail(startLine, startColumn,
         std::string(triple ? "unterminated triple-quoted string literal"
                            : "unterminated string literal") +
             ": expected a closing " + (triple ? std::string(3, quote) : std::string(1, quote)) +
             (triple ? " before the end of file" : " before the end of the line"));
  };
  // Reads exactly `count` hex digits of an escape; `escapeStart` is at '\'.
  auto readHex = [&](std::size_t escapeStart, int count) {
    std::uint32_t value = 0;
    for (int i = 0; i < count; ++i) {
      std::size_t p = pos_ + i;
      if (p >= text_.size() || !isHexDigit(text_[p])) {
        fail(line_, column(escapeStart),
             detail::concat("truncated \\", text_[escapeStart + 1], " escape: expected ", count,
                            " hex digits"));
      }
      value = value * 16 + digitValue(text_[p]);
    }
    pos_ += count;
    return value;
  };

  std::string value;
  while (true) {
    if (pos_ >= text_.size()) unterminated();
    char c = text_[pos_];
    if (c == quote) {
      if (!triple) {
        ++pos_;
        break;
      }
      if (pos_ + 2 < text_.size() && text_[pos_ + 1] == quote && text_[pos_ + 2] == quote) {
        pos_ += 3;
        break;
      }
      value += c;
      ++pos_;
    } else if (c == '\n') {
      if (!triple) unterminated();
      value += c;
      ++pos_;
      startNewLine();
    } else if (c != '\\') {
      value += c;
      ++pos_;
    } else if (pos_ + 1 >= text_.size()) {
      ++pos_;  // The loop reports the missing closing quote.
    } else if (raw) {
      // A raw string keeps the backslash, but it still protects the quote.
      value += c;
      value += text_[pos_ + 1];
      pos_ += 2;
      if (text_[pos_ - 1] == '\n') startNewLine();
    } else {
      std::size_t escapeStart = pos_;
      char n = text_[pos_ + 1];
      pos_ += 2;
      switch (n) {
        case '\n':
          startNewLine();  // A backslash-newline joins the lines.
          break;
        case '\\':
        case '\'':
        case '"': value += n; break;
        case 'a': value += '\a'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'n': value += '\n'; break;
        case 'r': value += '\r'; break;
        case 't': value += '\t'; break;
        case 'v': value += '\v'; break;
        case 'x': {
          std::uint32_t code = readHex(escapeStart, 2);
          if (bytes) {
            value += static_cast<char>(code);
          } else {
            appendUtf8(value, code);
          }
          break;
        }
        case 'u':
        case 'U': {
          if (bytes) {  // Not an escape in a bytes literal.
            value += '\\';
            value += n;
            break;
          }
          std::uint32_t code = readHex(escapeStart, n == 'u' ? 4 : 8);
          if (code > 0x10FFFF) {
            fail(line_, column(escapeStart), "invalid \\U escape: code point beyond U+10FFFF");
          }
          appendUtf8(value, code);
          break;
        }
        default:
          if (isOctalDigit(n)) {
            std::uint32_t code = digitValue(n);
            for (int i = 0; i < 2 && pos_ < text_.size() && isOctalDigit(text_[pos_]); ++i) {
              code = code * 8 + digitValue(text_[pos_++]);
            }
            if (bytes) {
              value += static_cast<char>(code & 0xFF);
            } else {
              appendUtf8(value, code);
            }
          } else {
            // Unknown escapes (and \N{...}) keep their backslash, as Python.
            value += '\\';
            value += n;
          }
      }
    }
  }

  Token token = makeToken(TokenKind::kString, startLine, startColumn);
  token.text = std::move(value);
  token.stringPrefix = std::move(prefix);
  push(std::move(token));
}

void Lexer::scanOperator() {
  std::string_view rest = std::string_view(text_).substr(pos_);
  for (std::string_view op : kOperators) {
    if (rest.substr(0, op.size()) != op) continue;
    int col = column(pos_);
    char c = op[0];
    if (op.size() == 1 && (c == '(' || c == '[' || c == '{')) {
      brackets_.push_back({c, line_, col});
    } else if (op.size() == 1 && (c == ')' || c == ']' || c == '}')) {
      if (brackets_.empty()) {
        fail(line_, col, detail::concat("unmatched '", c, "': no bracket is open here"));
      }
      Bracket open = brackets_.back();
      char expected = open.open == '(' ? ')' : open.open == '[' ? ']' : '}';
      if (c != expected) {
        fail(line_, col,
             detail::concat("expected '", expected, "' to close the '", open.open, "' opened at ",
                            open.line, ":", open.column, ", found '", c, "'"));
      }
      brackets_.pop_back();
    }
    pos_ += op.size();
    Token token = makeToken(TokenKind::kOperator, line_, col);
    token.text = std::string(op);
    push(std::move(token));
    return;
  }
  char c = text_[pos_];
  if (c == '!') {
    fail(line_, column(pos_), "unexpected '!': Python's negation is 'not', and '!=' compares");
  }
  fail(line_, column(pos_), "unexpected " + describeCharacter(c));
}

void Lexer::finish() {
  // With a bracket still open the statement is unfinished; the parser says
  // which bracket when it meets the end of file.
  if (brackets_.empty()) {
    if (lineHasTokens_) {
      pending_.push_back(endToken(TokenKind::kNewline));
      lineHasTokens_ = false;
    }
    while (indents_.size() > 1) {
      indents_.pop_back();
      pending_.push_back(endToken(TokenKind::kDedent));
    }
  }
  pending_.push_back(endToken(TokenKind::kEndOfFile));
  finished_ = true;
}

// Tokens made of no text sit right after the last real token, so that an
// error about them points at the end of the statement it concerns.
Token Lexer::endToken(TokenKind kind) const {
  Token token;
  token.kind = kind;
  token.line = token.endLine = lastEndLine_;
  token.column = token.endColumn = lastEndColumn_;
  return token;
}

std::vector<Token> tokenize(std::string_view source, const std::string& fileName) {
  SourceText text(source, fileName);
  Lexer lexer(text);
  std::vector<Token> tokens;
  do {
    tokens.push_back(lexer.next());
  } while (tokens.back().kind != TokenKind::kEndOfFile);
  return tokens;
}

}  // namespace fuserlab::frontend
