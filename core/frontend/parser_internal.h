// Internal to the script parser: the Parser class, shared by parser.cpp
// (tokens, node building, statements) and parser_expressions.cpp
// (expressions). Not part of the frontend's API.
#pragma once

#include <deque>
#include <optional>
#include <ostream>

#include "core/frontend/lexer.h"
#include "core/frontend/script_ast.h"

namespace fuserlab::frontend::parser_detail {

// Python's binding strengths, loosest first. `not` sits between `and` and
// the comparisons: `not a == b` is `not (a == b)`.
constexpr int kOrPrecedence = 1;
constexpr int kAndPrecedence = 2;
constexpr int kNotPrecedence = 3;
constexpr int kComparisonPrecedence = 4;
constexpr int kBitOrPrecedence = 5;
constexpr int kBitXorPrecedence = 6;
constexpr int kBitAndPrecedence = 7;
constexpr int kShiftPrecedence = 8;
constexpr int kSumPrecedence = 9;
constexpr int kProductPrecedence = 10;

struct BinaryOperator {
  BinaryOpKind kind;
  int precedence;
};

// `not in` and `is not` take two tokens: `next` is the one after `token`.
inline std::optional<BinaryOperator> binaryOperator(const Token& token, const Token& next) {
  if (token.kind == TokenKind::kKeyword) {
    if (token.text == "or") return BinaryOperator{BinaryOpKind::kOr, kOrPrecedence};
    if (token.text == "and") return BinaryOperator{BinaryOpKind::kAnd, kAndPrecedence};
    if (token.text == "in") return BinaryOperator{BinaryOpKind::kIn, kComparisonPrecedence};
    if (token.text == "is") {
      const bool negated = next.kind == TokenKind::kKeyword && next.text == "not";
      return BinaryOperator{negated ? BinaryOpKind::kIsNot : BinaryOpKind::kIs,
                            kComparisonPrecedence};
    }
    if (token.text == "not" && next.kind == TokenKind::kKeyword && next.text == "in") {
      return BinaryOperator{BinaryOpKind::kNotIn, kComparisonPrecedence};
    }
    return std::nullopt;
  }
  if (token.kind != TokenKind::kOperator) return std::nullopt;
  static constexpr struct {
    std::string_view spelling;
    BinaryOpKind kind;
    int precedence;
  } kOperators[] = {
      {"==", BinaryOpKind::kEq, kComparisonPrecedence},
      {"!=", BinaryOpKind::kNotEq, kComparisonPrecedence},
      {"<", BinaryOpKind::kLess, kComparisonPrecedence},
      {"<=", BinaryOpKind::kLessEq, kComparisonPrecedence},
      {">", BinaryOpKind::kGreater, kComparisonPrecedence},
      {">=", BinaryOpKind::kGreaterEq, kComparisonPrecedence},
      {"+", BinaryOpKind::kAdd, kSumPrecedence},
      {"-", BinaryOpKind::kSub, kSumPrecedence},
      {"*", BinaryOpKind::kMul, kProductPrecedence},
      {"/", BinaryOpKind::kDiv, kProductPrecedence},
      {"//", BinaryOpKind::kFloorDiv, kProductPrecedence},
      {"%", BinaryOpKind::kMod, kProductPrecedence},
      {"@", BinaryOpKind::kMatMul, kProductPrecedence},
      {"|", BinaryOpKind::kBitOr, kBitOrPrecedence},
      {"^", BinaryOpKind::kBitXor, kBitXorPrecedence},
      {"&", BinaryOpKind::kBitAnd, kBitAndPrecedence},
      {"<<", BinaryOpKind::kLeftShift, kShiftPrecedence},
      {">>", BinaryOpKind::kRightShift, kShiftPrecedence},
  };
  for (const auto& op : kOperators) {
    if (token.text == op.spelling) return BinaryOperator{op.kind, op.precedence};
  }
  return std::nullopt;
}

// Where a token started; the parser keeps these rather than whole tokens on
// its recursive paths, so that deep nesting costs little stack.
struct Position {
  int line = 0;
  int column = 0;
};

inline std::ostream& operator<<(std::ostream& out, Position position) {
  return out << position.line << ":" << position.column;
}

// A recursive-descent parser over Python's grammar with one or two tokens of
// lookahead and precedence climbing for binary operators. Constructs outside
// the dialect are recognised where Python would accept them, so that the
// error names the construct instead of reporting a puzzling token.
//
// Stack economy: DepthGuard bounds the nesting, and what a level costs is the
// sum of the frames on the recursive path. The functions marked noinline hold
// the locals of one construct (a bracket, a compound statement) or build
// nodes and error messages; out of line, they cost stack only while that
// construct is open. Builds with ASan pad every local, and without this the
// limit needed several MB of stack there; now it needs under 1 MB.
class Parser {
 public:
  Parser(std::string_view source, const std::string& fileName)
      : text_(source, fileName), lexer_(text_) {}

  Module parseModule();

 private:
  // Bounds the recursion of the parser itself: every cycle through the
  // expression grammar and every nested block passes through one.
  class DepthGuard {
   public:
    DepthGuard(Parser& parser, const Token& at) : parser_(parser) {
      if (parser_.depth_ >= kMaxNestingDepth) {
        parser_.fail(at, "nesting deeper than ", kMaxNestingDepth, " levels is not supported");
      }
      ++parser_.depth_;
    }
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& parser_;
  };

  // Statements.
  void parseStatement(std::vector<StmtPtr>& body);
  [[gnu::noinline]] void parseSimpleStatements(std::vector<StmtPtr>& body);
  StmtPtr parseSmallStatement();
  StmtPtr parseAssignmentOrExpression();
  [[gnu::noinline]] StmtPtr parseDecorated();
  [[gnu::noinline]] StmtPtr parseWhile();
  [[gnu::noinline]] StmtPtr parseTry();
  [[gnu::noinline]] StmtPtr parseKeywordStatement();
  ExprPtr parseTargetList(std::string_view context);
  ExprPtr parseTarget(std::string_view context);
  StmtPtr parseImport();
  StmtPtr parseImportFrom();
  ImportAlias parseImportAlias(bool dotted, std::string_view expected);
  std::string parseDottedName(std::string_view expected);
  [[gnu::noinline]] StmtPtr parseFunctionDef();
  [[gnu::noinline]] void parseParameter(std::vector<Parameter>& params, std::string_view owner,
                                        Position open, bool lambda);
  [[gnu::noinline]] StmtPtr parseWith();
  [[gnu::noinline]] StmtPtr parseIf();
  [[gnu::noinline]] StmtPtr parseFor();
  [[gnu::noinline]] StmtPtr parseClassDef();
  std::vector<StmtPtr> parseBlock(std::string_view owner, Position ownerAt);
  void checkAssignTarget(const Expr& target, bool allowAttribute = true);

  // Expressions, loosest binding first.
  ExprPtr parseExpressionList();
  ExprPtr parseTest();
  [[gnu::noinline]] ExprPtr parseLambda();
  [[gnu::noinline]] ExprPtr parseConditional(ExprPtr body);
  ExprPtr parseStarredOrTest();
  [[gnu::noinline]] ExprPtr parseComprehension(ComprehensionKind kind, ExprPtr element,
                                               ExprPtr value, Position open,
                                               std::string_view close);
  [[gnu::noinline]] ExprPtr parseBraces();
  [[gnu::noinline]] ExprPtr parseSubscriptElement();
  ExprPtr parseBinary(int minPrecedence);
  ExprPtr parseNot();
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  [[gnu::noinline]] ExprPtr parseAttribute(ExprPtr object);
  [[gnu::noinline]] ExprPtr parseCall(ExprPtr callee);
  void parseArgument(Call& call, Position open);
  void parseKeywordArgument(Call& call, Position open);
  [[gnu::noinline]] ExprPtr parseSubscript(ExprPtr object);
  ExprPtr parseAtom();
  [[gnu::noinline]] ExprPtr parseLeaf();
  [[gnu::noinline]] ExprPtr parseStrings();
  [[gnu::noinline]] ExprPtr parseParenthesized();
  [[gnu::noinline]] ExprPtr parseList();
  [[gnu::noinline]] void rejectUnsupportedOperators();
  [[gnu::noinline]] void rejectComprehension();
  bool atComprehensionFor();

  template <typename ParseElement>
  void parseCommaList(Position open, std::string_view close, std::string_view what,
                      ParseElement parseElement);

  // Tokens.
  const Token& peek(std::size_t ahead = 0);
  Token take();
  Position takePosition();
  bool atOp(std::string_view op, std::size_t ahead = 0);
  bool atKeyword(std::string_view word, std::size_t ahead = 0);
  bool atKind(TokenKind kind) { return peek().kind == kind; }
  bool continuesLine();
  Position expectOp(std::string_view op, std::string_view context);
  Token expectName(std::string_view expected);
  bool canStartExpression(const Token& token) const;

  // Nodes.
  [[gnu::noinline]] SourceLocation nodeLocation(Position position) const;
  SourceLocation nodeLocation(const Token& token) const {
    return nodeLocation(Position{token.line, token.column});
  }
  [[gnu::noinline]] ExprPtr makeExpr(Expr::Node node, SourceLocation location);
  [[gnu::noinline]] ExprPtr makeBinary(BinaryOpKind op, ExprPtr lhs, ExprPtr rhs, Position at);
  [[gnu::noinline]] ExprPtr makeUnary(UnaryOpKind op, ExprPtr operand, Position at);
  [[gnu::noinline]] ExprPtr makeCall(ExprPtr callee, Call&& call, Position open);
  [[gnu::noinline]] ExprPtr makeSubscript(ExprPtr object, std::vector<ExprPtr>&& elements,
                                          bool tuple);
  [[gnu::noinline]] ExprPtr makeTuple(std::vector<ExprPtr>&& elements, Position open);
  [[gnu::noinline]] ExprPtr makeList(std::vector<ExprPtr>&& elements, Position open);
  [[gnu::noinline]] static StmtPtr makeStmt(Stmt::Node node, SourceLocation location);

  // Errors; a message is the concatenation of its parts, formatted out of
  // line so that no message temporary sits in a recursive frame.
  template <typename... Parts>
  [[noreturn, gnu::noinline, gnu::cold]] void fail(Position at, const Parts&... message);
  template <typename... Parts>
  [[noreturn, gnu::noinline, gnu::cold]] void fail(const Token& at, const Parts&... message);
  template <typename... Parts>
  [[noreturn, gnu::noinline, gnu::cold]] void failExpected(const Token& found,
                                                           const Parts&... expected);
  template <typename... Parts>
  [[noreturn, gnu::noinline, gnu::cold]] void failUnsupported(const Token& at,
                                                              const Parts&... what);

  SourceText text_;
  Lexer lexer_;
  std::deque<Token> lookahead_;
  int depth_ = 0;
  int lastEndLine_ = 0;           // of the last token taken
  bool keywordOnlyNext_ = false;  // after a bare `*` in a parameter list
};

template <typename... Parts>
void Parser::fail(Position at, const Parts&... message) {
  throw UserError(detail::concat(message...), text_.locate(at.line, at.column));
}

template <typename... Parts>
void Parser::fail(const Token& at, const Parts&... message) {
  fail(Position{at.line, at.column}, message...);
}

template <typename... Parts>
void Parser::failExpected(const Token& found, const Parts&... expected) {
  fail(found, "expected ", expected..., ", found ", describe(found));
}

template <typename... Parts>
void Parser::failUnsupported(const Token& at, const Parts&... what) {
  fail(at, what..., " are not part of the FusionDefinition dialect");
}

// Parses `element, element, ...` up to `close`, a trailing comma allowed;
// the opening bracket at `open` is already taken.
template <typename ParseElement>
void Parser::parseCommaList(Position open, std::string_view close, std::string_view what,
                            ParseElement parseElement) {
  while (!atOp(close)) {
    parseElement();
    if (atOp(",")) {
      take();
    } else if (!atOp(close)) {
      failExpected(peek(), "',' or '", close, "' to close the ", what, " opened at ", open);
    }
  }
  take();
}

}  // namespace fuserlab::frontend::parser_detail
