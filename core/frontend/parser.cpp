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
    case TokenKind::kString: return true;
    case TokenKind::kKeyword:
      // Those outside the dialect too, so that their error names them.
      return token.text == "True" || token.text == "False" || token.text == "None" ||
             token.text == "not" || token.text == "lambda" || token.text == "await" ||
             token.text == "yield";
    case TokenKind::kOperator:
      return token.text == "(" || token.text == "[" || token.text == "{" || token.text == "-" ||
             token.text == "+" || token.text == "~" || token.text == "*" || token.text == "...";
    default: return false;
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
  return SourceLocation{text_.fileName(), position.line, position.column, std::string(lineText)};
}

ExprPtr Parser::makeExpr(Expr::Node node, SourceLocation location) {
  auto expr = std::make_unique<Expr>();
  expr->node = std::move(node);
  expr->location = std::move(location);
  int childHeight = 0;
  forEachChild(*expr,
               [&](const Expr& child) { childHeight = std::max(childHeight, child.height); });
  expr->height = childHeight + 1;
  // Chains such as `a + b + c + ...` are built by loops, not recursion, so
  // the depth guard does not see them; their height does.
  if (expr->height > kMaxNestingDepth) {
    fail(Position{expr->location.line, expr->location.column},
         "expression nested too deeply: more than ", kMaxNestingDepth, " levels");
  }
  return expr;
}

ExprPtr Parser::makeBinary(BinaryOpKind op, ExprPtr lhs, ExprPtr rhs, Position at) {
  SourceLocation location = lhs->location;
  return makeExpr(BinaryOp{op, std::move(lhs), std::move(rhs), nodeLocation(at)},
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

ExprPtr Parser::makeSubscript(ExprPtr object, std::vector<ExprPtr>&& elements, bool tuple) {
  ExprPtr index;
  if (tuple) {
    SourceLocation location = elements.front()->location;
    index = makeExpr(Tuple{std::move(elements)}, std::move(location));
  } else {
    index = std::move(elements.front());
  }
  SourceLocation location = object->location;
  return makeExpr(Subscript{std::move(object), std::move(index)}, std::move(location));
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
    body.push_back(parseDecorated());
    return;
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
    if (word == "while") {
      body.push_back(parseWhile());
      return;
    }
    if (word == "class") {
      body.push_back(parseClassDef());
      return;
    }
    if (word == "try") {
      body.push_back(parseTry());
      return;
    }
    if (word == "except" || word == "finally") {
      fail(token, "unexpected '", word, "': it must follow a 'try' block at the same indentation");
    }
    if (word == "async") {
      failUnsupported(token, "'async' functions and statements");
    }
    if (word == "elif" || word == "else") {
      fail(token, "unexpected '", word, "': it must follow an 'if' block at the same indentation");
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
    if (word == "assert" || word == "raise" || word == "break" || word == "continue") {
      return parseKeywordStatement();
    }
    if (word == "del") {
      SourceLocation location = nodeLocation(token);
      take();
      Delete del;
      while (true) {
        ExprPtr target = parseBinary(kBitOrPrecedence);
        if (!target->is<Name>() && !target->is<Subscript>()) {
          fail(Position{target->location.line, target->location.column},
               "'del' takes names and subscripts ('del x', 'del xs[0]')");
        }
        del.targets.push_back(std::move(target));
        if (!atOp(",")) break;
        take();
      }
      return makeStmt(std::move(del), std::move(location));
    }
    if (word == "global" || word == "nonlocal") {
      failUnsupported(token, "'", word, "' statements");
    }
  }
  return parseAssignmentOrExpression();
}

StmtPtr Parser::parseKeywordStatement() {
  const std::string word = peek().text;
  SourceLocation location = nodeLocation(peek());
  take();
  if (word == "break") return makeStmt(Break{}, std::move(location));
  if (word == "continue") return makeStmt(Continue{}, std::move(location));
  if (word == "raise") {
    Raise raise;
    if (canStartExpression(peek())) raise.exception = parseTest();
    if (atKeyword("from")) {
      take();
      parseTest();  // the cause adds nothing to the message
    }
    return makeStmt(std::move(raise), std::move(location));
  }
  Assert assertion;
  assertion.test = parseTest();
  if (atOp(",")) {
    take();
    assertion.message = parseTest();
  }
  return makeStmt(std::move(assertion), std::move(location));
}

// `@decorator` lines, then the `def` or `class` they decorate. Decorators
// (pytest's parametrize marks, functools.cache) are kept but never applied.
StmtPtr Parser::parseDecorated() {
  std::vector<ExprPtr> decorators;
  while (atOp("@")) {
    take();
    decorators.push_back(parseTest());
    if (!atKind(TokenKind::kNewline)) {
      failExpected(peek(), "end of line after the decorator");
    }
    take();
  }
  if (atKeyword("def")) {
    StmtPtr stmt = parseFunctionDef();
    stmt->as<FunctionDef>()->decorators = std::move(decorators);
    return stmt;
  }
  if (atKeyword("class")) return parseClassDef();
  failExpected(peek(), "'def' or 'class' after the decorator");
}

StmtPtr Parser::parseTry() {
  Position keyword = takePosition();
  Try tryStmt;
  expectOp(":", "after 'try'");
  tryStmt.body = parseBlock("try", keyword);
  while (atKeyword("except")) {
    ExceptHandler handler;
    handler.location = nodeLocation(peek());
    Position at = takePosition();
    if (atOp("*")) failUnsupported(peek(), "'except*' clauses");
    if (!atOp(":")) {
      handler.type = parseTest();
      if (atKeyword("as")) {
        take();
        handler.name = expectName("a name after 'as'").text;
      }
    }
    expectOp(":", "to end the 'except' line");
    handler.body = parseBlock("except", at);
    tryStmt.handlers.push_back(std::move(handler));
  }
  if (atKeyword("else")) {
    if (tryStmt.handlers.empty()) fail(peek(), "'else' after 'try' needs an 'except' first");
    Position at = takePosition();
    expectOp(":", "after 'else'");
    tryStmt.orelse = parseBlock("else", at);
  }
  if (atKeyword("finally")) {
    Position at = takePosition();
    expectOp(":", "after 'finally'");
    tryStmt.finalbody = parseBlock("finally", at);
  }
  if (tryStmt.handlers.empty() && tryStmt.finalbody.empty()) {
    failExpected(peek(), "'except' or 'finally' after the 'try' block");
  }
  return makeStmt(std::move(tryStmt), nodeLocation(keyword));
}

StmtPtr Parser::parseWhile() {
  Position keyword = takePosition();
  While loop;
  loop.condition = parseTest();
  expectOp(":", "to end the 'while' condition");
  loop.body = parseBlock("while", keyword);
  if (atKeyword("else")) failUnsupported(peek(), "'else' blocks of loops");
  return makeStmt(std::move(loop), nodeLocation(keyword));
}

StmtPtr Parser::parseAssignmentOrExpression() {
  SourceLocation location = nodeLocation(peek());
  ExprPtr first = parseExpressionList();
  if (atOp("=")) {
    checkAssignTarget(*first);
    take();
    Assign assign;
    assign.target = std::move(first);
    assign.value = parseExpressionList();
    // `a = b = value`: every expression but the last is a target.
    while (atOp("=")) {
      checkAssignTarget(*assign.value);
      assign.extraTargets.push_back(std::move(assign.value));
      take();
      assign.value = parseExpressionList();
    }
    return makeStmt(std::move(assign), std::move(location));
  }
  const Token& next = peek();
  if (next.kind == TokenKind::kOperator && next.text.size() >= 2 && next.text.back() == '=' &&
      next.text != "==" && next.text != "!=" && next.text != "<=" && next.text != ">=" &&
      next.text != ":=") {
    const std::string spelled = next.text.substr(0, next.text.size() - 1);
    Token dummy;
    dummy.kind = TokenKind::kOperator;
    dummy.text = spelled;
    std::optional<BinaryOperator> op = binaryOperator(dummy, dummy);
    if (!op || op->kind == BinaryOpKind::kMatMul) {
      failUnsupported(next, "augmented assignments with '", next.text, "'");
    }
    if (!first->is<Name>() && !first->is<Attribute>() && !first->is<Subscript>()) {
      fail(next, "the target of '", next.text, "' must be a name, an attribute or a subscript");
    }
    take();
    ExprPtr value = parseExpressionList();
    return makeStmt(AugAssign{std::move(first), op->kind, std::move(value)}, std::move(location));
  }
  if (next.kind == TokenKind::kOperator && next.text == ":") {
    // `x: int = value` is an assignment; `x: int` alone declares nothing.
    checkAssignTarget(*first);
    take();
    parseTest();
    if (!atOp("=")) return makeStmt(Pass{}, std::move(location));
    take();
    ExprPtr value = parseExpressionList();
    return makeStmt(Assign{std::move(first), std::move(value), {}}, std::move(location));
  }
  return makeStmt(ExprStatement{std::move(first)}, std::move(location));
}

void Parser::checkAssignTarget(const Expr& target, bool allowAttribute) {
  auto failAt = [&](const Expr& expr, const std::string& message) {
    fail(Position{expr.location.line, expr.location.column}, message);
  };
  if (target.is<Name>() || target.is<Subscript>()) return;
  if (target.is<Attribute>()) {
    if (!allowAttribute) failAt(target, "cannot assign to an attribute here");
    return;
  }
  const std::vector<ExprPtr>* elements = nullptr;
  if (const auto* tuple = target.as<Tuple>()) elements = &tuple->elements;
  if (const auto* list = target.as<List>()) elements = &list->elements;
  if (elements == nullptr) {
    failAt(target, "cannot assign to a " + std::string(kindName(target)) +
                       ": the target of '=' must be a name, an attribute, a "
                       "subscript or a tuple of those");
  }
  if (elements->empty()) {
    failAt(target, "cannot assign to an empty " + std::string(kindName(target)) +
                       ": the target of '=' must be a name or a tuple of "
                       "names");
  }
  bool starred = false;
  for (const ExprPtr& element : *elements) {
    if (const auto* star = element->as<Starred>()) {
      if (starred) failAt(*element, "two starred targets in one assignment");
      starred = true;
      checkAssignTarget(*star->value, allowAttribute);
      continue;
    }
    checkAssignTarget(*element, allowAttribute);
  }
}

StmtPtr Parser::parseImport() {
  Position keyword = takePosition();
  Import import;
  import.names.push_back(parseImportAlias(true, "a module name after 'import'"));
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
      from.names.push_back(
          parseImportAlias(false, detail::concat("a name to import or ')' to close the import "
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
      from.names.push_back(parseImportAlias(false, "a name to import after ','"));
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
                 [&] { parseParameter(def.params, def.name, open, false); });
  if (atOp("->")) {
    take();
    def.returns = parseTest();
  }
  expectOp(":", "to end the 'def' line");
  def.body = parseBlock("def", keyword);
  return makeStmt(std::move(def), nodeLocation(keyword));
}

void Parser::parseParameter(std::vector<Parameter>& params, std::string_view owner, Position open,
                            bool lambda) {
  const bool keywordOnly =
      keywordOnlyNext_ || (!params.empty() && (params.back().keywordOnly ||
                                               params.back().kind == ParameterKind::kVarArgs));
  keywordOnlyNext_ = false;
  if (!params.empty() && params.back().kind == ParameterKind::kKwArgs) {
    fail(peek(), "no parameter may follow '**", params.back().name, "'");
  }
  if (atOp("/")) {
    take();  // positional-only marker: the parameters before it bind alike
    return;
  }
  Parameter param;
  param.location = nodeLocation(peek());
  param.keywordOnly = keywordOnly;
  if (atOp("*")) {
    take();
    if (atOp(",") || atOp(")") || atOp(":")) {
      // A bare `*`: the parameters after it are keyword-only.
      if (atOp(",")) {
        take();
        keywordOnlyNext_ = true;
        parseParameter(params, owner, open, lambda);
        return;
      }
      fail(peek(), "a bare '*' must be followed by a keyword-only parameter");
    }
    param.kind = ParameterKind::kVarArgs;
  } else if (atOp("**")) {
    take();
    param.kind = ParameterKind::kKwArgs;
  }
  Token name = expectName(detail::concat("a parameter name or '", lambda ? ":" : ")",
                                         "' to close the parameter list opened at ", open));
  if (params.size() >= kMaxNamedArguments) {
    fail(name, "the definition of '", owner, "' has more than ", kMaxNamedArguments,
         " parameters; FuserLab reads definitions with at most that many");
  }
  for (const Parameter& other : params) {
    if (other.name == name.text) {
      fail(name, "duplicate parameter '", name.text, "' in the definition of '", owner, "'");
    }
  }
  param.name = name.text;
  if (!lambda && atOp(":")) {
    take();
    param.annotation = parseTest();
  }
  if (atOp("=")) {
    if (param.kind != ParameterKind::kNormal) {
      fail(peek(), "'*' and '**' parameters take no default");
    }
    take();
    param.defaultValue = parseTest();
  } else if (param.kind == ParameterKind::kNormal && !param.keywordOnly && !params.empty() &&
             params.back().defaultValue && !params.back().keywordOnly) {
    fail(name, "parameter '", name.text, "' without a default follows a parameter with one");
  }
  params.push_back(std::move(param));
}

StmtPtr Parser::parseWith() {
  Position keyword = takePosition();
  // `with a as x, b as y:` is `with a as x:` around `with b as y:`.
  std::vector<With> items;
  while (true) {
    With with;
    with.context = parseTest();
    if (atKeyword("as")) {
      take();
      with.targetLocation = nodeLocation(peek());
      with.target = expectName("a name after 'as'").text;
    }
    items.push_back(std::move(with));
    if (!atOp(",")) break;
    take();
  }
  expectOp(":", "to end the 'with' line");
  std::vector<StmtPtr> body = parseBlock("with", keyword);
  for (size_t i = items.size(); i-- > 0;) {
    items[i].body = std::move(body);
    body.clear();
    body.push_back(makeStmt(std::move(items[i]), nodeLocation(keyword)));
  }
  return std::move(body.front());
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
  loop.target = parseTargetList("a loop variable after 'for'");
  if (!atKeyword("in")) failExpected(peek(), "'in' after the loop variable");
  take();
  loop.iterable = parseExpressionList();
  expectOp(":", "to end the 'for' line");
  loop.body = parseBlock("for", keyword);
  if (atKeyword("else")) failUnsupported(peek(), "'else' blocks of loops");
  return makeStmt(std::move(loop), nodeLocation(keyword));
}

// The targets of a `for` (loop or comprehension), up to its `in`: `i`,
// `i, t`, `(a, b)`, `i, (a, b)`, `*rest`.
ExprPtr Parser::parseTargetList(std::string_view context) {
  SourceLocation location = nodeLocation(peek());
  std::vector<ExprPtr> targets;
  bool trailingComma = false;
  while (true) {
    targets.push_back(parseTarget(context));
    if (!atOp(",")) break;
    take();
    trailingComma = true;
    if (atKeyword("in")) break;
    trailingComma = false;
  }
  if (targets.size() == 1 && !trailingComma) return std::move(targets[0]);
  return makeExpr(Tuple{std::move(targets)}, std::move(location));
}

ExprPtr Parser::parseTarget(std::string_view context) {
  DepthGuard guard(*this, peek());
  if (atOp("*")) {
    SourceLocation location = nodeLocation(peek());
    take();
    ExprPtr inner = parseTarget(context);
    return makeExpr(Starred{std::move(inner)}, std::move(location));
  }
  if (atOp("(") || atOp("[")) {
    const bool paren = atOp("(");
    Position open = takePosition();
    std::vector<ExprPtr> targets;
    parseCommaList(open, paren ? ")" : "]", "target list",
                   [&] { targets.push_back(parseTarget(context)); });
    return paren ? makeTuple(std::move(targets), open) : makeList(std::move(targets), open);
  }
  if (!atKind(TokenKind::kName)) failExpected(peek(), context);
  ExprPtr target = parseAtom();
  while (atOp(".") || atOp("[")) {
    target = atOp(".") ? parseAttribute(std::move(target)) : parseSubscript(std::move(target));
  }
  return target;
}

StmtPtr Parser::parseClassDef() {
  Position keyword = takePosition();
  ClassDef def;
  def.name = expectName("a class name after 'class'").text;
  if (atOp("(")) {
    Position open = takePosition();
    parseCommaList(open, ")", "base class list", [&] { def.bases.push_back(parseTest()); });
  }
  expectOp(":", "to end the 'class' line");
  def.body = parseBlock("class", keyword);
  return makeStmt(std::move(def), nodeLocation(keyword));
}

// The body after a `:`: statements on the same line, or an indented block.
std::vector<StmtPtr> Parser::parseBlock(std::string_view owner, Position ownerAt) {
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
