#include "core/frontend/parser.h"

#include <algorithm>
#include <deque>
#include <optional>

#include "core/frontend/lexer.h"

namespace fuserlab::frontend {
namespace {

// Python's binding strengths, loosest first. `not` sits between `and` and
// the comparisons: `not a == b` is `not (a == b)`.
constexpr int kOrPrecedence = 1;
constexpr int kAndPrecedence = 2;
constexpr int kNotPrecedence = 3;
constexpr int kComparisonPrecedence = 4;
constexpr int kSumPrecedence = 5;
constexpr int kProductPrecedence = 6;

struct BinaryOperator {
  BinaryOpKind kind;
  int precedence;
};

std::optional<BinaryOperator> binaryOperator(const Token& token) {
  if (token.kind == TokenKind::kKeyword) {
    if (token.text == "or")
      return BinaryOperator{BinaryOpKind::kOr, kOrPrecedence};
    if (token.text == "and")
      return BinaryOperator{BinaryOpKind::kAnd, kAndPrecedence};
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
  };
  for (const auto& op : kOperators) {
    if (token.text == op.spelling)
      return BinaryOperator{op.kind, op.precedence};
  }
  return std::nullopt;
}

// Where a token started; the parser keeps these rather than whole tokens on
// its recursive paths, so that deep nesting costs little stack.
struct Position {
  int line = 0;
  int column = 0;
};

std::ostream& operator<<(std::ostream& out, Position position) {
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
        parser_.fail(at, "nesting deeper than ", kMaxNestingDepth,
                     " levels is not supported");
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
  StmtPtr parseImport();
  StmtPtr parseImportFrom();
  ImportAlias parseImportAlias(bool dotted, std::string_view expected);
  std::string parseDottedName(std::string_view expected);
  [[gnu::noinline]] StmtPtr parseFunctionDef();
  [[gnu::noinline]] void parseParameter(FunctionDef& def, Position open);
  [[gnu::noinline]] StmtPtr parseWith();
  [[gnu::noinline]] StmtPtr parseIf();
  std::vector<StmtPtr> parseBlock(std::string_view owner, Position ownerAt);
  void checkAssignTarget(const Expr& target);

  // Expressions, loosest binding first.
  ExprPtr parseExpressionList();
  ExprPtr parseTest();
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

  template <typename ParseElement>
  void parseCommaList(Position open, std::string_view close,
                      std::string_view what, ParseElement parseElement);

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
  [[gnu::noinline]] ExprPtr makeBinary(BinaryOpKind op, ExprPtr lhs,
                                       ExprPtr rhs, Position at);
  [[gnu::noinline]] ExprPtr makeUnary(UnaryOpKind op, ExprPtr operand,
                                      Position at);
  [[gnu::noinline]] ExprPtr makeCall(ExprPtr callee, Call&& call,
                                     Position open);
  [[gnu::noinline]] ExprPtr makeSubscript(ExprPtr object,
                                          std::vector<ExprPtr>&& elements,
                                          bool tuple);
  [[gnu::noinline]] ExprPtr makeTuple(std::vector<ExprPtr>&& elements,
                                      Position open);
  [[gnu::noinline]] ExprPtr makeList(std::vector<ExprPtr>&& elements,
                                     Position open);
  [[gnu::noinline]] static StmtPtr makeStmt(Stmt::Node node,
                                            SourceLocation location);

  // Errors; a message is the concatenation of its parts, formatted out of
  // line so that no message temporary sits in a recursive frame.
  template <typename... Parts>
  [[noreturn, gnu::noinline, gnu::cold]] void fail(Position at,
                                                   const Parts&... message);
  template <typename... Parts>
  [[noreturn, gnu::noinline, gnu::cold]] void fail(const Token& at,
                                                   const Parts&... message);
  template <typename... Parts>
  [[noreturn, gnu::noinline, gnu::cold]] void failExpected(
      const Token& found, const Parts&... expected);
  template <typename... Parts>
  [[noreturn, gnu::noinline, gnu::cold]] void failUnsupported(
      const Token& at, const Parts&... what);

  SourceText text_;
  Lexer lexer_;
  std::deque<Token> lookahead_;
  int depth_ = 0;
  int lastEndLine_ = 0;  // of the last token taken
};

// ---- Tokens ---------------------------------------------------------------

const Token& Parser::peek(std::size_t ahead) {
  // A deque keeps references to its elements valid as it grows.
  while (lookahead_.size() <= ahead) lookahead_.push_back(lexer_.next());
  return lookahead_[ahead];
}

Token Parser::take() {
  peek();
  Token token = std::move(lookahead_.front());
  lookahead_.pop_front();
  lastEndLine_ = token.endLine;
  return token;
}

Position Parser::takePosition() {
  const Token& token = peek();
  Position position{token.line, token.column};
  lastEndLine_ = token.endLine;
  lookahead_.pop_front();
  return position;
}

bool Parser::atOp(std::string_view op, std::size_t ahead) {
  const Token& token = peek(ahead);
  return token.kind == TokenKind::kOperator && token.text == op;
}

bool Parser::atKeyword(std::string_view word, std::size_t ahead) {
  const Token& token = peek(ahead);
  return token.kind == TokenKind::kKeyword && token.text == word;
}

// A keyword such as `for` or `if` that starts a new line inside brackets is
// far more likely a statement after a missing ')' than a comprehension.
bool Parser::continuesLine() { return peek().line == lastEndLine_; }

Position Parser::expectOp(std::string_view op, std::string_view context) {
  if (!atOp(op)) {
    failExpected(peek(), "'", op, "' ", context);
  }
  return takePosition();
}

Token Parser::expectName(std::string_view expected) {
  if (!atKind(TokenKind::kName)) failExpected(peek(), expected);
  return take();
}

bool Parser::canStartExpression(const Token& token) const {
  switch (token.kind) {
    case TokenKind::kName:
    case TokenKind::kNumber:
    case TokenKind::kString:
      return true;
    case TokenKind::kKeyword:
      // Those outside the dialect too, so that their error names them.
      return token.text == "True" || token.text == "False" ||
             token.text == "None" || token.text == "not" ||
             token.text == "lambda" || token.text == "await" ||
             token.text == "yield";
    case TokenKind::kOperator:
      return token.text == "(" || token.text == "[" || token.text == "{" ||
             token.text == "-" || token.text == "+" || token.text == "~" ||
             token.text == "*" || token.text == "...";
    default:
      return false;
  }
}

// ---- Nodes and errors -----------------------------------------------------

SourceLocation Parser::nodeLocation(Position position) const {
  std::string_view lineText = text_.line(position.line);
  if (lineText.size() > kMaxNodeLineTextBytes) {
    lineText = position.column <= static_cast<int>(kMaxNodeLineTextBytes)
                   ? lineText.substr(0, kMaxNodeLineTextBytes)
                   : std::string_view();
  }
  return SourceLocation{text_.fileName(), position.line, position.column,
                        std::string(lineText)};
}

ExprPtr Parser::makeExpr(Expr::Node node, SourceLocation location) {
  auto expr = std::make_unique<Expr>();
  expr->node = std::move(node);
  expr->location = std::move(location);
  int childHeight = 0;
  forEachChild(*expr, [&](const Expr& child) {
    childHeight = std::max(childHeight, child.height);
  });
  expr->height = childHeight + 1;
  // Chains such as `a + b + c + ...` are built by loops, not recursion, so
  // the depth guard does not see them; their height does.
  if (expr->height > kMaxNestingDepth) {
    fail(Position{expr->location.line, expr->location.column},
         "expression nested too deeply: more than ", kMaxNestingDepth,
         " levels");
  }
  return expr;
}

ExprPtr Parser::makeBinary(BinaryOpKind op, ExprPtr lhs, ExprPtr rhs,
                           Position at) {
  SourceLocation location = lhs->location;
  return makeExpr(
      BinaryOp{op, std::move(lhs), std::move(rhs), nodeLocation(at)},
      std::move(location));
}

ExprPtr Parser::makeUnary(UnaryOpKind op, ExprPtr operand, Position at) {
  return makeExpr(UnaryOp{op, std::move(operand)}, nodeLocation(at));
}

ExprPtr Parser::makeCall(ExprPtr callee, Call&& call, Position open) {
  SourceLocation location = callee->location;
  call.callee = std::move(callee);
  call.openParen = nodeLocation(open);
  return makeExpr(std::move(call), std::move(location));
}

ExprPtr Parser::makeSubscript(ExprPtr object, std::vector<ExprPtr>&& elements,
                              bool tuple) {
  ExprPtr index;
  if (tuple) {
    SourceLocation location = elements.front()->location;
    index = makeExpr(Tuple{std::move(elements)}, std::move(location));
  } else {
    index = std::move(elements.front());
  }
  SourceLocation location = object->location;
  return makeExpr(Subscript{std::move(object), std::move(index)},
                  std::move(location));
}

ExprPtr Parser::makeTuple(std::vector<ExprPtr>&& elements, Position open) {
  return makeExpr(Tuple{std::move(elements)}, nodeLocation(open));
}

ExprPtr Parser::makeList(std::vector<ExprPtr>&& elements, Position open) {
  return makeExpr(List{std::move(elements)}, nodeLocation(open));
}

StmtPtr Parser::makeStmt(Stmt::Node node, SourceLocation location) {
  auto stmt = std::make_unique<Stmt>();
  stmt->node = std::move(node);
  stmt->location = std::move(location);
  return stmt;
}

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

// ---- Statements -----------------------------------------------------------

Module Parser::parseModule() {
  Module module;
  module.fileName = text_.fileName();
  while (!atKind(TokenKind::kEndOfFile)) parseStatement(module.body);
  return module;
}

void Parser::parseStatement(std::vector<StmtPtr>& body) {
  const Token& token = peek();
  if (token.kind == TokenKind::kIndent) {
    fail(token,
         "unexpected indent: expected the statement to line up with the "
         "statements before it");
  }
  if (token.kind == TokenKind::kOperator && token.text == "@") {
    failUnsupported(token, "decorators");
  }
  if (token.kind == TokenKind::kKeyword) {
    const std::string& word = token.text;
    if (word == "def") {
      body.push_back(parseFunctionDef());
      return;
    }
    if (word == "with") {
      body.push_back(parseWith());
      return;
    }
    if (word == "if") {
      body.push_back(parseIf());
      return;
    }
    if (word == "for" || word == "while") {
      failUnsupported(token, "'", word, "' loops");
    }
    if (word == "class") failUnsupported(token, "class definitions");
    if (word == "try" || word == "except" || word == "finally") {
      failUnsupported(token, "'try' statements");
    }
    if (word == "async") {
      failUnsupported(token, "'async' functions and statements");
    }
    if (word == "elif" || word == "else") {
      fail(token, "unexpected '", word,
           "': it must follow an 'if' block at the same indentation");
    }
  }
  parseSimpleStatements(body);
}

void Parser::parseSimpleStatements(std::vector<StmtPtr>& body) {
  while (true) {
    body.push_back(parseSmallStatement());
    if (!atOp(";")) break;
    take();
    if (atKind(TokenKind::kNewline)) break;
  }
  if (!atKind(TokenKind::kNewline)) {
    failExpected(peek(), "end of line after the statement");
  }
  take();
}

StmtPtr Parser::parseSmallStatement() {
  const Token& token = peek();
  if (token.kind == TokenKind::kKeyword) {
    const std::string& word = token.text;
    if (word == "pass") {
      SourceLocation location = nodeLocation(token);
      take();
      return makeStmt(Pass{}, std::move(location));
    }
    if (word == "return") {
      SourceLocation location = nodeLocation(token);
      take();
      ExprPtr value;
      if (canStartExpression(peek())) value = parseExpressionList();
      return makeStmt(Return{std::move(value)}, std::move(location));
    }
    if (word == "import") return parseImport();
    if (word == "from") return parseImportFrom();
    if (word == "del" || word == "global" || word == "nonlocal" ||
        word == "assert" || word == "raise" || word == "break" ||
        word == "continue") {
      failUnsupported(token, "'", word, "' statements");
    }
  }
  return parseAssignmentOrExpression();
}

StmtPtr Parser::parseAssignmentOrExpression() {
  SourceLocation location = nodeLocation(peek());
  ExprPtr first = parseExpressionList();
  if (atOp("=")) {
    checkAssignTarget(*first);
    take();
    ExprPtr value = parseExpressionList();
    if (atOp("=")) failUnsupported(peek(), "chained assignments ('a = b = c')");
    return makeStmt(Assign{std::move(first), std::move(value)},
                    std::move(location));
  }
  const Token& next = peek();
  if (next.kind == TokenKind::kOperator && next.text.size() >= 2 &&
      next.text.back() == '=' && next.text != "==" && next.text != "!=" &&
      next.text != "<=" && next.text != ">=") {
    failUnsupported(next, "augmented assignments ('", next.text, "')");
  }
  if (next.kind == TokenKind::kOperator && next.text == ":") {
    failUnsupported(next, "annotated assignments ('x: int = ...')");
  }
  return makeStmt(ExprStatement{std::move(first)}, std::move(location));
}

void Parser::checkAssignTarget(const Expr& target) {
  auto failAt = [&](const Expr& expr, const std::string& message) {
    fail(Position{expr.location.line, expr.location.column}, message);
  };
  auto checkName = [&](const Expr& expr) {
    if (expr.is<Name>()) return;
    if (expr.is<Attribute>()) {
      failAt(expr,
             "assignments to attributes ('x.y = ...') are not part of "
             "the FusionDefinition dialect");
    }
    if (expr.is<Subscript>()) {
      failAt(expr,
             "assignments to subscripts ('x[i] = ...') are not part of "
             "the FusionDefinition dialect");
    }
    if (expr.is<Tuple>() || expr.is<List>()) {
      failAt(expr,
             "nested targets ('a, (b, c) = ...') are not part of the "
             "FusionDefinition dialect");
    }
    failAt(expr, "cannot assign to a " + std::string(kindName(expr)) +
                     ": the target of '=' must be a name or a tuple of names");
  };
  const std::vector<ExprPtr>* elements = nullptr;
  if (const auto* tuple = target.as<Tuple>()) elements = &tuple->elements;
  if (const auto* list = target.as<List>()) elements = &list->elements;
  if (elements == nullptr) {
    checkName(target);
    return;
  }
  if (elements->empty()) {
    failAt(target, "cannot assign to an empty " +
                       std::string(kindName(target)) +
                       ": the target of '=' must be a name or a tuple of "
                       "names");
  }
  for (const ExprPtr& element : *elements) checkName(*element);
}

StmtPtr Parser::parseImport() {
  Position keyword = takePosition();
  Import import;
  import.names.push_back(
      parseImportAlias(true, "a module name after 'import'"));
  while (atOp(",")) {
    take();
    import.names.push_back(parseImportAlias(true, "a module name after ','"));
  }
  return makeStmt(std::move(import), nodeLocation(keyword));
}

StmtPtr Parser::parseImportFrom() {
  Position keyword = takePosition();
  if (atOp(".") || atOp("...")) {
    failUnsupported(peek(), "relative imports ('from . import x')");
  }
  ImportFrom from;
  from.module = parseDottedName("a module name after 'from'");
  if (!atKeyword("import")) {
    failExpected(peek(), "'import' after 'from ", from.module, "'");
  }
  take();
  if (atOp("*")) {
    from.names.push_back(ImportAlias{"*", "", nodeLocation(takePosition())});
  } else if (atOp("(")) {
    Position open = takePosition();
    parseCommaList(open, ")", "import list", [&] {
      from.names.push_back(parseImportAlias(
          false, detail::concat("a name to import or ')' to close the import "
                                "list opened at ",
                                open)));
    });
    if (from.names.empty()) {
      fail(open, "expected a name to import inside the parentheses");
    }
  } else {
    from.names.push_back(parseImportAlias(false, "a name to import"));
    while (atOp(",")) {
      take();
      from.names.push_back(
          parseImportAlias(false, "a name to import after ','"));
    }
  }
  return makeStmt(std::move(from), nodeLocation(keyword));
}

ImportAlias Parser::parseImportAlias(bool dotted, std::string_view expected) {
  ImportAlias alias;
  alias.location = nodeLocation(peek());
  alias.name = dotted ? parseDottedName(expected) : expectName(expected).text;
  if (atKeyword("as")) {
    take();
    alias.asName = expectName("a name after 'as'").text;
  }
  return alias;
}

std::string Parser::parseDottedName(std::string_view expected) {
  std::string name = expectName(expected).text;
  while (atOp(".")) {
    take();
    name += "." + expectName("a name after '.'").text;
  }
  return name;
}

StmtPtr Parser::parseFunctionDef() {
  Position keyword = takePosition();
  FunctionDef def;
  def.name = expectName("a function name after 'def'").text;
  Position open = expectOp("(", "after the function name");
  parseCommaList(open, ")", "parameter list",
                 [&] { parseParameter(def, open); });
  if (atOp("->")) {
    take();
    def.returns = parseTest();
  }
  expectOp(":", "to end the 'def' line");
  def.body = parseBlock("def", keyword);
  return makeStmt(std::move(def), nodeLocation(keyword));
}

void Parser::parseParameter(FunctionDef& def, Position open) {
  if (atOp("*") || atOp("**") || atOp("/")) {
    failUnsupported(peek(), "'*', '**' and '/' parameters");
  }
  Parameter param;
  param.location = nodeLocation(peek());
  Token name = expectName(detail::concat(
      "a parameter name or ')' to close the parameter list opened at ", open));
  for (const Parameter& other : def.params) {
    if (other.name == name.text) {
      fail(name, "duplicate parameter '", name.text, "' in the definition of '",
           def.name, "'");
    }
  }
  param.name = name.text;
  if (atOp(":")) {
    take();
    param.annotation = parseTest();
  }
  if (atOp("=")) {
    take();
    param.defaultValue = parseTest();
  } else if (!def.params.empty() && def.params.back().defaultValue) {
    fail(name, "parameter '", name.text,
         "' without a default follows a parameter with one");
  }
  def.params.push_back(std::move(param));
}

StmtPtr Parser::parseWith() {
  Position keyword = takePosition();
  With with;
  with.context = parseTest();
  if (atKeyword("as")) {
    take();
    with.targetLocation = nodeLocation(peek());
    with.target = expectName("a name after 'as'").text;
  }
  if (atOp(",")) {
    failUnsupported(peek(), "'with' statements of several context managers");
  }
  expectOp(":", "to end the 'with' line");
  with.body = parseBlock("with", keyword);
  return makeStmt(std::move(with), nodeLocation(keyword));
}

StmtPtr Parser::parseIf() {
  std::string_view word = atKeyword("if") ? "if" : "elif";
  Position keyword = takePosition();
  If branch;
  branch.condition = parseTest();
  expectOp(":", detail::concat("to end the '", word, "' condition"));
  branch.body = parseBlock(word, keyword);
  if (atKeyword("elif")) {
    // Each `elif` nests one If deeper.
    DepthGuard guard(*this, peek());
    branch.orelse.push_back(parseIf());
  } else if (atKeyword("else")) {
    Position elsePosition = takePosition();
    expectOp(":", "after 'else'");
    branch.orelse = parseBlock("else", elsePosition);
  }
  return makeStmt(std::move(branch), nodeLocation(keyword));
}

// The body after a `:`: statements on the same line, or an indented block.
std::vector<StmtPtr> Parser::parseBlock(std::string_view owner,
                                        Position ownerAt) {
  DepthGuard guard(*this, peek());
  std::vector<StmtPtr> body;
  if (!atKind(TokenKind::kNewline)) {
    parseSimpleStatements(body);
    return body;
  }
  take();
  if (!atKind(TokenKind::kIndent)) {
    failExpected(peek(), "an indented block after '", owner, "' at ", ownerAt);
  }
  take();
  while (!atKind(TokenKind::kDedent) && !atKind(TokenKind::kEndOfFile)) {
    parseStatement(body);
  }
  if (atKind(TokenKind::kDedent)) take();
  return body;
}

// Parses `element, element, ...` up to `close`, a trailing comma allowed;
// the opening bracket at `open` is already taken.
template <typename ParseElement>
void Parser::parseCommaList(Position open, std::string_view close,
                            std::string_view what, ParseElement parseElement) {
  while (!atOp(close)) {
    parseElement();
    if (atOp(",")) {
      take();
    } else if (!atOp(close)) {
      failExpected(peek(), "',' or '", close, "' to close the ", what,
                   " opened at ", open);
    }
  }
  take();
}

// ---- Expressions ----------------------------------------------------------

// `a`, or `a, b` and `a,` as a Tuple: the value of an assignment or return.
ExprPtr Parser::parseExpressionList() {
  ExprPtr first = parseTest();
  if (!atOp(",")) return first;
  SourceLocation location = first->location;
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  while (atOp(",")) {
    take();
    if (!canStartExpression(peek())) break;
    elements.push_back(parseTest());
  }
  return makeExpr(Tuple{std::move(elements)}, std::move(location));
}

ExprPtr Parser::parseTest() {
  DepthGuard guard(*this, peek());
  if (atKeyword("lambda")) failUnsupported(peek(), "lambda expressions");
  ExprPtr expr = parseBinary(kOrPrecedence);
  if (atKeyword("if") && continuesLine()) {
    failUnsupported(peek(), "conditional expressions ('a if c else b')");
  }
  if (atOp(":=")) failUnsupported(peek(), "assignment expressions (':=')");
  return expr;
}

// Precedence climbing: operators binding at least as tightly as
// `minPrecedence`, left-associative, built by a loop.
ExprPtr Parser::parseBinary(int minPrecedence) {
  ExprPtr lhs = minPrecedence <= kNotPrecedence && atKeyword("not")
                    ? parseNot()
                    : parseFactor();
  bool afterComparison = false;
  while (true) {
    rejectUnsupportedOperators();
    std::optional<BinaryOperator> op = binaryOperator(peek());
    if (!op || op->precedence < minPrecedence) return lhs;
    bool comparison = op->precedence == kComparisonPrecedence;
    if (comparison && afterComparison) {
      failUnsupported(peek(), "chained comparisons ('a < b < c')");
    }
    afterComparison = comparison;
    Position at = takePosition();
    ExprPtr rhs = parseBinary(op->precedence + 1);
    lhs = makeBinary(op->kind, std::move(lhs), std::move(rhs), at);
  }
}

ExprPtr Parser::parseNot() {
  DepthGuard guard(*this, peek());
  Position at = takePosition();
  ExprPtr operand = parseBinary(kNotPrecedence);
  return makeUnary(UnaryOpKind::kNot, std::move(operand), at);
}

void Parser::rejectUnsupportedOperators() {
  const Token& token = peek();
  if (token.kind == TokenKind::kOperator &&
      (token.text == "|" || token.text == "&" || token.text == "^" ||
       token.text == "<<" || token.text == ">>")) {
    failUnsupported(token, "bitwise operators ('", token.text, "')");
  }
  if (atKeyword("in")) failUnsupported(token, "'in' tests");
  if (atKeyword("is")) failUnsupported(token, "'is' tests");
  if (atKeyword("not") && atKeyword("in", 1)) {
    failUnsupported(token, "'not in' tests");
  }
}

ExprPtr Parser::parseFactor() {
  UnaryOpKind kind;
  if (atOp("-")) {
    kind = UnaryOpKind::kNegate;
  } else if (atOp("+")) {
    kind = UnaryOpKind::kPlus;
  } else if (atOp("~")) {
    kind = UnaryOpKind::kInvert;
  } else {
    return parsePower();
  }
  DepthGuard guard(*this, peek());
  Position at = takePosition();
  ExprPtr operand = parseFactor();
  return makeUnary(kind, std::move(operand), at);
}

ExprPtr Parser::parsePower() {
  if (atKeyword("await")) failUnsupported(peek(), "'await' expressions");
  ExprPtr base = parsePrimary();
  if (!atOp("**")) return base;
  // `**` is right-associative: its exponent recurses.
  DepthGuard guard(*this, peek());
  Position at = takePosition();
  ExprPtr exponent = parseFactor();
  return makeBinary(BinaryOpKind::kPow, std::move(base), std::move(exponent),
                    at);
}

ExprPtr Parser::parsePrimary() {
  ExprPtr expr = parseAtom();
  while (true) {
    if (atOp(".")) {
      expr = parseAttribute(std::move(expr));
    } else if (atOp("(")) {
      expr = parseCall(std::move(expr));
    } else if (atOp("[")) {
      expr = parseSubscript(std::move(expr));
    } else {
      return expr;
    }
  }
}

ExprPtr Parser::parseAttribute(ExprPtr object) {
  take();  // '.'
  SourceLocation nameLocation = nodeLocation(peek());
  std::string name = expectName("an attribute name after '.'").text;
  SourceLocation location = object->location;
  return makeExpr(
      Attribute{std::move(object), std::move(name), std::move(nameLocation)},
      std::move(location));
}

ExprPtr Parser::parseCall(ExprPtr callee) {
  Position open = takePosition();
  Call call;
  parseCommaList(open, ")", "call", [&] { parseArgument(call, open); });
  return makeCall(std::move(callee), std::move(call), open);
}

void Parser::parseArgument(Call& call, Position open) {
  const Token& token = peek();
  if (atOp("*") || atOp("**")) {
    failUnsupported(token, "unpacked arguments ('*args', '**kwargs')");
  }
  if (token.kind == TokenKind::kName && atOp("=", 1)) {
    parseKeywordArgument(call, open);
    return;
  }
  if (!canStartExpression(token)) {
    failExpected(token, "an argument or ')' to close the call opened at ",
                 open);
  }
  if (!call.keywords.empty()) {
    fail(token, "positional argument follows keyword argument '",
         call.keywords.back().name, "'");
  }
  call.args.push_back(parseTest());
  rejectComprehension();
}

void Parser::parseKeywordArgument(Call& call, Position open) {
  const Token& name = peek();
  for (const Keyword& other : call.keywords) {
    if (other.name == name.text) {
      fail(name, "keyword argument '", name.text,
           "' repeated in the call opened at ", open);
    }
  }
  Keyword keyword;
  keyword.location = nodeLocation(name);
  keyword.name = take().text;
  take();  // '='
  keyword.value = parseTest();
  rejectComprehension();
  call.keywords.push_back(std::move(keyword));
}

ExprPtr Parser::parseSubscript(ExprPtr object) {
  Position open = takePosition();
  std::vector<ExprPtr> elements;
  bool tuple = false;
  while (true) {
    if (atOp(":")) failUnsupported(peek(), "slices ('x[1:2]')");
    if (!canStartExpression(peek())) {
      if (elements.empty()) failExpected(peek(), "an index after '['");
      failExpected(peek(), "an index or ']' to close the subscript opened at ",
                   open);
    }
    elements.push_back(parseTest());
    if (atOp(":")) failUnsupported(peek(), "slices ('x[1:2]')");
    if (!atOp(",")) break;
    take();
    tuple = true;
    if (atOp("]")) break;
  }
  if (!atOp("]")) {
    failExpected(peek(), tuple ? "']'" : "',' or ']'",
                 " to close the subscript opened at ", open);
  }
  take();
  return makeSubscript(std::move(object), std::move(elements), tuple);
}

void Parser::rejectComprehension() {
  if ((atKeyword("for") || (atKeyword("async") && atKeyword("for", 1))) &&
      continuesLine()) {
    failUnsupported(peek(), "comprehensions and generator expressions");
  }
}

ExprPtr Parser::parseAtom() {
  const Token& token = peek();
  if (token.kind == TokenKind::kOperator) {
    if (token.text == "(") return parseParenthesized();
    if (token.text == "[") return parseList();
  }
  return parseLeaf();
}

// Everything parseAtom does not recurse for: literals, names and the errors.
ExprPtr Parser::parseLeaf() {
  const Token& token = peek();
  switch (token.kind) {
    case TokenKind::kName: {
      SourceLocation location = nodeLocation(token);
      return makeExpr(Name{take().text}, std::move(location));
    }
    case TokenKind::kNumber: {
      SourceLocation location = nodeLocation(token);
      Number number{token.intValue, token.floatValue, token.isInt};
      take();
      return makeExpr(number, std::move(location));
    }
    case TokenKind::kString:
      return parseStrings();
    case TokenKind::kKeyword: {
      std::optional<ConstantKind> constant;
      if (token.text == "True") constant = ConstantKind::kTrue;
      if (token.text == "False") constant = ConstantKind::kFalse;
      if (token.text == "None") constant = ConstantKind::kNone;
      if (constant) {
        SourceLocation location = nodeLocation(token);
        take();
        return makeExpr(Constant{*constant}, std::move(location));
      }
      if (token.text == "lambda") failUnsupported(token, "lambda expressions");
      if (token.text == "yield") failUnsupported(token, "'yield' expressions");
      if (token.text == "await") failUnsupported(token, "'await' expressions");
      break;
    }
    case TokenKind::kOperator:
      if (token.text == "{") {
        failUnsupported(token, "dict and set displays ('{...}')");
      }
      if (token.text == "*") {
        failUnsupported(token, "starred expressions ('*x')");
      }
      if (token.text == "...") {
        failUnsupported(token, "Ellipsis literals ('...')");
      }
      break;
    default:
      break;
  }
  failExpected(token, "an expression");
}

ExprPtr Parser::parseStrings() {
  SourceLocation location = nodeLocation(peek());
  String string;
  bool first = true;
  while (atKind(TokenKind::kString)) {
    Token literal = take();
    bool isBytes = literal.stringPrefix.find('b') != std::string::npos;
    if (!first && isBytes != string.isBytes) {
      fail(literal, "cannot join a bytes literal and a str literal");
    }
    first = false;
    string.isBytes = isBytes;
    string.isFormat =
        string.isFormat || literal.stringPrefix.find('f') != std::string::npos;
    string.value += literal.text;
  }
  return makeExpr(std::move(string), std::move(location));
}

ExprPtr Parser::parseParenthesized() {
  Position open = takePosition();
  if (atOp(")")) {
    take();
    return makeTuple({}, open);
  }
  if (!canStartExpression(peek())) {
    failExpected(peek(),
                 "an expression or ')' to close the parenthesis opened at ",
                 open);
  }
  ExprPtr first = parseTest();
  rejectComprehension();
  if (atOp(")")) {
    take();
    return first;  // Parentheses group; they make no node of their own.
  }
  if (!atOp(",")) {
    failExpected(peek(), "',' or ')' to close the parenthesis opened at ",
                 open);
  }
  take();
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  parseCommaList(open, ")", "tuple", [&] {
    if (!canStartExpression(peek())) {
      failExpected(peek(), "an element or ')' to close the tuple opened at ",
                   open);
    }
    elements.push_back(parseTest());
  });
  return makeTuple(std::move(elements), open);
}

ExprPtr Parser::parseList() {
  Position open = takePosition();
  std::vector<ExprPtr> elements;
  parseCommaList(open, "]", "list", [&] {
    if (!canStartExpression(peek())) {
      failExpected(peek(), "an element or ']' to close the list opened at ",
                   open);
    }
    elements.push_back(parseTest());
    rejectComprehension();
  });
  return makeList(std::move(elements), open);
}

}  // namespace

Module parseScript(std::string_view source, const std::string& fileName) {
  Parser parser(source, fileName);
  return parser.parseModule();
}

}  // namespace fuserlab::frontend
