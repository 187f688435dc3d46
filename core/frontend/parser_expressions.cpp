// The expression half of the script parser: comma lists, precedence
// climbing over Python's operators, calls, subscripts and literals.
#include <algorithm>

#include "core/frontend/parser_internal.h"

namespace fuserlab::frontend::parser_detail {

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

}  // namespace fuserlab::frontend::parser_detail
