// The expression half of the script parser: comma lists, precedence
// climbing over Python's operators, calls, subscripts and literals.
#include <algorithm>

#include "core/frontend/parser_internal.h"

namespace fuserlab::frontend::parser_detail {

// ---- Expressions ----------------------------------------------------------

// `a`, or `a, b` and `a,` as a Tuple: the value of an assignment or return.
ExprPtr Parser::parseExpressionList() {
  ExprPtr first = parseStarredOrTest();
  if (!atOp(",")) {
    if (first->is<Starred>()) {
      fail(Position{first->location.line, first->location.column},
           "a starred expression ('*x') is only allowed in a list, a tuple, "
           "a call or an assignment target");
    }
    return first;
  }
  SourceLocation location = first->location;
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  while (atOp(",")) {
    take();
    if (!canStartExpression(peek())) break;
    elements.push_back(parseStarredOrTest());
  }
  return makeExpr(Tuple{std::move(elements)}, std::move(location));
}

// `*x` where a display or target allows it, or an ordinary expression.
ExprPtr Parser::parseStarredOrTest() {
  if (!atOp("*")) return parseTest();
  DepthGuard guard(*this, peek());
  SourceLocation location = nodeLocation(peek());
  take();
  ExprPtr value = parseBinary(kBitOrPrecedence);
  return makeExpr(Starred{std::move(value)}, std::move(location));
}

ExprPtr Parser::parseTest() {
  DepthGuard guard(*this, peek());
  if (atKeyword("lambda")) return parseLambda();
  ExprPtr expr = parseBinary(kOrPrecedence);
  if (atKeyword("if")) expr = parseConditional(std::move(expr));
  if (atOp(":=")) {
    const auto* name = expr->as<Name>();
    if (name == nullptr) {
      fail(peek(), "the target of ':=' must be a name");
    }
    take();
    std::string target = name->id;
    SourceLocation location = expr->location;
    ExprPtr value = parseTest();
    return makeExpr(NamedExpr{std::move(target), std::move(value)}, std::move(location));
  }
  return expr;
}

ExprPtr Parser::parseConditional(ExprPtr body) {
  take();  // 'if'
  ExprPtr test = parseBinary(kOrPrecedence);
  if (!atKeyword("else")) {
    failExpected(peek(),
                 "'else' in the conditional expression "
                 "('a if condition else b')");
  }
  take();
  ExprPtr orelse = parseTest();
  SourceLocation location = body->location;
  return makeExpr(IfExp{std::move(test), std::move(body), std::move(orelse)}, std::move(location));
}

ExprPtr Parser::parseLambda() {
  SourceLocation location = nodeLocation(peek());
  Position open = takePosition();
  Lambda lambda;
  while (!atOp(":")) {
    parseParameter(lambda.params, "lambda", open, true);
    if (atOp(",")) {
      take();
    } else if (!atOp(":")) {
      failExpected(peek(), "',' or ':' in the lambda's parameters");
    }
  }
  take();
  lambda.body = parseTest();
  return makeExpr(std::move(lambda), std::move(location));
}

// Precedence climbing: operators binding at least as tightly as
// `minPrecedence`, left-associative, built by a loop.
ExprPtr Parser::parseBinary(int minPrecedence) {
  ExprPtr lhs = minPrecedence <= kNotPrecedence && atKeyword("not") ? parseNot() : parseFactor();
  bool afterComparison = false;
  while (true) {
    rejectUnsupportedOperators();
    std::optional<BinaryOperator> op = binaryOperator(peek(), peek(1));
    if (!op || op->precedence < minPrecedence) return lhs;
    bool comparison = op->precedence == kComparisonPrecedence;
    if (comparison && afterComparison) {
      failUnsupported(peek(), "chained comparisons ('a < b < c')");
    }
    afterComparison = comparison;
    Position at = takePosition();
    if (op->kind == BinaryOpKind::kNotIn || op->kind == BinaryOpKind::kIsNot) {
      take();  // the second word of `not in` / `is not`
    }
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
  if (atOp("...")) failUnsupported(peek(), "Ellipsis literals ('...')");
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
  return makeBinary(BinaryOpKind::kPow, std::move(base), std::move(exponent), at);
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
  return makeExpr(Attribute{std::move(object), std::move(name), std::move(nameLocation)},
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
  if (atOp("**")) {
    Keyword keyword;
    keyword.location = nodeLocation(token);
    take();
    keyword.value = parseTest();
    call.keywords.push_back(std::move(keyword));
    return;
  }
  if (token.kind == TokenKind::kName && atOp("=", 1)) {
    parseKeywordArgument(call, open);
    return;
  }
  if (!canStartExpression(token)) {
    failExpected(token, "an argument or ')' to close the call opened at ", open);
  }
  if (!call.keywords.empty() && !atOp("*")) {
    fail(token, "positional argument follows keyword argument '", call.keywords.back().name, "'");
  }
  ExprPtr arg = parseStarredOrTest();
  if (atComprehensionFor()) {
    // `f(x for x in xs)`: a generator expression as the only argument.
    if (!call.args.empty() || !call.keywords.empty() || arg->is<Starred>()) {
      fail(peek(),
           "a generator expression must be the only argument of a "
           "call unless it is in parentheses");
    }
    arg = parseComprehension(ComprehensionKind::kGenerator, std::move(arg), nullptr, open, "");
  }
  call.args.push_back(std::move(arg));
}

void Parser::parseKeywordArgument(Call& call, Position open) {
  const Token& name = peek();
  if (call.keywords.size() >= kMaxNamedArguments) {
    fail(name, "the call opened at ", open, " has more than ", kMaxNamedArguments,
         " keyword arguments; FuserLab reads calls with at most that many");
  }
  for (const Keyword& other : call.keywords) {
    if (other.name == name.text) {
      fail(name, "keyword argument '", name.text, "' repeated in the call opened at ", open);
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
    if (!atOp(":") && !canStartExpression(peek())) {
      if (elements.empty()) failExpected(peek(), "an index after '['");
      failExpected(peek(), "an index or ']' to close the subscript opened at ", open);
    }
    elements.push_back(parseSubscriptElement());
    if (!atOp(",")) break;
    take();
    tuple = true;
    if (atOp("]")) break;
  }
  if (!atOp("]")) {
    failExpected(peek(), tuple ? "']'" : "',' or ']'", " to close the subscript opened at ", open);
  }
  take();
  return makeSubscript(std::move(object), std::move(elements), tuple);
}

// One index of a subscript: an expression or a slice `a:b:c`.
ExprPtr Parser::parseSubscriptElement() {
  SourceLocation location = nodeLocation(peek());
  ExprPtr lower;
  if (!atOp(":")) {
    lower = parseStarredOrTest();
    if (!atOp(":")) return lower;
  }
  take();  // ':'
  Slice slice;
  slice.lower = std::move(lower);
  auto part = [&]() -> ExprPtr {
    if (atOp(":") || atOp(",") || atOp("]")) return nullptr;
    return parseTest();
  };
  slice.upper = part();
  if (atOp(":")) {
    take();
    slice.step = part();
  }
  return makeExpr(std::move(slice), std::move(location));
}

bool Parser::atComprehensionFor() {
  return atKeyword("for") || (atKeyword("async") && atKeyword("for", 1));
}

// The `for ... in ... if ...` clauses after `element` (and `value`, for a
// dict), up to `close` (empty: the caller closes).
ExprPtr Parser::parseComprehension(ComprehensionKind kind, ExprPtr element, ExprPtr value,
                                   Position open, std::string_view close) {
  DepthGuard guard(*this, peek());
  if (element->is<Starred>()) {
    fail(Position{element->location.line, element->location.column},
         "a starred expression cannot be a comprehension's element");
  }
  Comprehension comprehension;
  comprehension.kind = kind;
  comprehension.element = std::move(element);
  comprehension.value = std::move(value);
  while (atComprehensionFor()) {
    if (atKeyword("async")) failUnsupported(peek(), "'async' comprehensions");
    take();  // 'for'
    ComprehensionFor clause;
    clause.target = parseTargetList("a variable after 'for'");
    if (!atKeyword("in")) failExpected(peek(), "'in' after the variable");
    take();
    clause.iterable = parseBinary(kOrPrecedence);
    while (atKeyword("if")) {
      take();
      clause.conditions.push_back(parseBinary(kOrPrecedence));
    }
    comprehension.clauses.push_back(std::move(clause));
  }
  if (!close.empty()) {
    if (!atOp(close)) {
      failExpected(peek(), "'", close, "' to close the comprehension opened at ", open);
    }
    take();
  }
  return makeExpr(std::move(comprehension), nodeLocation(open));
}

// `{}`, `{k: v, ...}`, `{a, b}` (a set) and their comprehensions.
ExprPtr Parser::parseBraces() {
  Position open = takePosition();
  Dict dict;
  if (atOp("}")) {
    take();
    return makeExpr(std::move(dict), nodeLocation(open));
  }
  if (atOp("**")) {
    failUnsupported(peek(), "'**' inside dict displays");
  }
  ExprPtr first = parseStarredOrTest();
  if (!atOp(":")) {
    // A set: FuserLab keeps it as a list of its distinct elements.
    if (atComprehensionFor()) {
      return parseComprehension(ComprehensionKind::kSet, std::move(first), nullptr, open, "}");
    }
    std::vector<ExprPtr> elements;
    elements.push_back(std::move(first));
    if (atOp(",")) {
      take();
      parseCommaList(open, "}", "set", [&] { elements.push_back(parseStarredOrTest()); });
    } else {
      if (!atOp("}")) failExpected(peek(), "',' or '}' to close the set");
      take();
    }
    return makeExpr(Call{makeExpr(Name{"set"}, nodeLocation(open)),
                         [&] {
                           std::vector<ExprPtr> args;
                           args.push_back(makeList(std::move(elements), open));
                           return args;
                         }(),
                         {},
                         nodeLocation(open)},
                    nodeLocation(open));
  }
  take();  // ':'
  ExprPtr firstValue = parseTest();
  if (atComprehensionFor()) {
    return parseComprehension(ComprehensionKind::kDict, std::move(first), std::move(firstValue),
                              open, "}");
  }
  dict.keys.push_back(std::move(first));
  dict.values.push_back(std::move(firstValue));
  if (atOp(",")) {
    take();
    parseCommaList(open, "}", "dict", [&] {
      dict.keys.push_back(parseTest());
      expectOp(":", "after the dict key");
      dict.values.push_back(parseTest());
    });
  } else {
    if (!atOp("}")) failExpected(peek(), "',' or '}' to close the dict");
    take();
  }
  return makeExpr(std::move(dict), nodeLocation(open));
}

void Parser::rejectComprehension() {
  if ((atKeyword("for") || (atKeyword("async") && atKeyword("for", 1))) && continuesLine()) {
    failUnsupported(peek(), "comprehensions and generator expressions");
  }
}

ExprPtr Parser::parseAtom() {
  const Token& token = peek();
  if (token.kind == TokenKind::kOperator) {
    if (token.text == "(") return parseParenthesized();
    if (token.text == "[") return parseList();
    if (token.text == "{") return parseBraces();
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
    case TokenKind::kString: return parseStrings();
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
      if (token.text == "lambda") return parseLambda();
      if (token.text == "yield") failUnsupported(token, "'yield' expressions");
      if (token.text == "await") failUnsupported(token, "'await' expressions");
      break;
    }
    case TokenKind::kOperator:
      if (token.text == "*") {
        fail(token,
             "a starred expression ('*x') is only allowed in a list, "
             "a tuple, a call or an assignment target");
      }
      if (token.text == "...") {
        failUnsupported(token, "Ellipsis literals ('...')");
      }
      break;
    default: break;
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
    string.isFormat = string.isFormat || literal.stringPrefix.find('f') != std::string::npos;
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
    failExpected(peek(), "an expression or ')' to close the parenthesis opened at ", open);
  }
  ExprPtr first = parseStarredOrTest();
  if (atComprehensionFor()) {
    return parseComprehension(ComprehensionKind::kGenerator, std::move(first), nullptr, open, ")");
  }
  if (atOp(")") && !first->is<Starred>()) {
    take();
    return first;  // Parentheses group; they make no node of their own.
  }
  if (atOp(")")) {
    take();
    std::vector<ExprPtr> only;
    only.push_back(std::move(first));
    return makeTuple(std::move(only), open);
  }
  if (!atOp(",")) {
    failExpected(peek(), "',' or ')' to close the parenthesis opened at ", open);
  }
  take();
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  parseCommaList(open, ")", "tuple", [&] {
    if (!canStartExpression(peek())) {
      failExpected(peek(), "an element or ')' to close the tuple opened at ", open);
    }
    elements.push_back(parseStarredOrTest());
  });
  return makeTuple(std::move(elements), open);
}

ExprPtr Parser::parseList() {
  Position open = takePosition();
  std::vector<ExprPtr> elements;
  if (!atOp("]") && canStartExpression(peek())) {
    ExprPtr first = parseStarredOrTest();
    if (atComprehensionFor()) {
      return parseComprehension(ComprehensionKind::kList, std::move(first), nullptr, open, "]");
    }
    elements.push_back(std::move(first));
    if (!atOp(",") && !atOp("]")) {
      failExpected(peek(), "',' or ']' to close the list opened at ", open);
    }
    if (atOp(",")) take();
  }
  parseCommaList(open, "]", "list", [&] {
    if (!canStartExpression(peek())) {
      failExpected(peek(), "an element or ']' to close the list opened at ", open);
    }
    elements.push_back(parseStarredOrTest());
    rejectComprehension();
  });
  return makeList(std::move(elements), open);
}

}  // namespace fuserlab::frontend::parser_detail
