#include "core/frontend/parser.h"

#include <algorithm>

#include "core/frontend/parser_internal.h"

namespace fuserlab::frontend {
namespace parser_detail {
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
    if (word == "for") {
      body.push_back(parseFor());
      return;
    }
    if (word == "while") failUnsupported(token, "'while' loops");
    if (word == "class") {
      body.push_back(parseClassDef());
      return;
    }
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

void Parser::checkAssignTarget(const Expr& target, bool allowAttribute) {
  auto failAt = [&](const Expr& expr, const std::string& message) {
    fail(Position{expr.location.line, expr.location.column}, message);
  };
  // `self.t0 = ...` in a FusionDefinition subclass: an attribute of a name.
  if (allowAttribute) {
    if (const auto* attribute = target.as<Attribute>()) {
      if (attribute->object->is<Name>()) return;
    }
  }
  auto checkName = [&](const Expr& expr) {
    if (expr.is<Name>()) return;
    if (expr.is<Attribute>()) {
      failAt(expr,
             "assignments to attributes are part of the FusionDefinition "
             "dialect only as a single target of the form 'self.x = ...'");
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

StmtPtr Parser::parseFor() {
  Position keyword = takePosition();
  For loop;
  SourceLocation targetAt = nodeLocation(peek());
  std::vector<ExprPtr> targets;
  while (true) {
    Token name = expectName("a loop variable after 'for'");
    targets.push_back(makeExpr(Name{name.text}, nodeLocation(name)));
    if (!atOp(",")) break;
    take();
  }
  if (targets.size() == 1) {
    loop.target = std::move(targets[0]);
  } else {
    loop.target = makeExpr(Tuple{std::move(targets)}, std::move(targetAt));
  }
  if (!atKeyword("in")) failExpected(peek(), "'in' after the loop variable");
  take();
  loop.iterable = parseExpressionList();
  expectOp(":", "to end the 'for' line");
  loop.body = parseBlock("for", keyword);
  return makeStmt(std::move(loop), nodeLocation(keyword));
}

StmtPtr Parser::parseClassDef() {
  Position keyword = takePosition();
  ClassDef def;
  def.name = expectName("a class name after 'class'").text;
  if (atOp("(")) {
    Position open = takePosition();
    parseCommaList(open, ")", "base class list",
                   [&] { def.bases.push_back(parseTest()); });
  }
  expectOp(":", "to end the 'class' line");
  def.body = parseBlock("class", keyword);
  return makeStmt(std::move(def), nodeLocation(keyword));
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

}  // namespace parser_detail

Module parseScript(std::string_view source, const std::string& fileName) {
  parser_detail::Parser parser(source, fileName);
  return parser.parseModule();
}

}  // namespace fuserlab::frontend
