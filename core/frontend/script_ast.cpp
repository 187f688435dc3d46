#include "core/frontend/script_ast.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace fuserlab::frontend {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

constexpr int kIndentSpaces = 4;

std::string numberToString(const Number& number) {
  if (number.isInt) return std::to_string(number.intValue);
  // What Python's ast.unparse writes for infinity: it reads back as inf.
  if (std::isinf(number.floatValue)) return "1e309";
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), number.floatValue);
  std::string text(buffer, error == std::errc() ? end : buffer);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// A Python literal that reads back as the same value. Text of a str is UTF-8
// and stays as is; bytes of a bytes literal above 0x7f become \x escapes.
std::string quoted(const String& string) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  if (string.isBytes) out += 'b';
  if (string.isFormat) out += 'f';
  out += '\'';
  for (char c : string.value) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (byte < 0x20 || byte == 0x7f || (string.isBytes && byte >= 0x80)) {
          out += "\\x";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '\'';
  return out;
}

void printExpr(std::ostream& out, const Expr& expr);
void printParameters(std::ostream& out, const std::vector<Parameter>& params);

// The object of `.name`, `(...)` or `[...]`: a number would swallow the dot
// (`1.real`) and a unary operation would bind looser than the postfix.
void printPrimary(std::ostream& out, const Expr& expr) {
  bool wrap = expr.is<Number>() || expr.is<UnaryOp>();
  if (wrap) out << '(';
  printExpr(out, expr);
  if (wrap) out << ')';
}

template <typename Range>
void printSeparated(std::ostream& out, const Range& exprs) {
  bool first = true;
  for (const ExprPtr& element : exprs) {
    if (!first) out << ", ";
    first = false;
    printExpr(out, *element);
  }
}

void printExpr(std::ostream& out, const Expr& expr) {
  std::visit(Overloaded{
                 [&](const Name& name) { out << name.id; },
                 [&](const Number& number) { out << numberToString(number); },
                 [&](const String& string) { out << quoted(string); },
                 [&](const Constant& constant) {
                   out << (constant.kind == ConstantKind::kTrue    ? "True"
                           : constant.kind == ConstantKind::kFalse ? "False"
                                                                   : "None");
                 },
                 [&](const Attribute& attribute) {
                   printPrimary(out, *attribute.object);
                   out << '.' << attribute.name;
                 },
                 [&](const Call& call) {
                   printPrimary(out, *call.callee);
                   out << '(';
                   printSeparated(out, call.args);
                   for (std::size_t i = 0; i < call.keywords.size(); ++i) {
                     if (i > 0 || !call.args.empty()) out << ", ";
                     if (call.keywords[i].name.empty()) {
                       out << "**";
                     } else {
                       out << call.keywords[i].name << '=';
                     }
                     printExpr(out, *call.keywords[i].value);
                   }
                   out << ')';
                 },
                 [&](const List& list) {
                   out << '[';
                   printSeparated(out, list.elements);
                   out << ']';
                 },
                 [&](const Tuple& tuple) {
                   out << '(';
                   printSeparated(out, tuple.elements);
                   if (tuple.elements.size() == 1) out << ',';
                   out << ')';
                 },
                 [&](const Subscript& subscript) {
                   printPrimary(out, *subscript.object);
                   out << '[';
                   const auto* tuple = subscript.index->as<Tuple>();
                   if (tuple != nullptr && !tuple->elements.empty()) {
                     printSeparated(out, tuple->elements);
                     if (tuple->elements.size() == 1) out << ',';
                   } else {
                     printExpr(out, *subscript.index);
                   }
                   out << ']';
                 },
                 [&](const UnaryOp& unary) {
                   // `not` binds looser than a comparison, so it always gets
                   // parentheses; `-x` binds tighter than every binary operation,
                   // which are in parentheses themselves.
                   if (unary.op == UnaryOpKind::kNot) {
                     out << "(not ";
                     printExpr(out, *unary.operand);
                     out << ')';
                   } else {
                     out << spelling(unary.op);
                     printExpr(out, *unary.operand);
                   }
                 },
                 [&](const BinaryOp& binary) {
                   out << '(';
                   // `-x ** 2` is `-(x ** 2)`: a unary base needs parentheses.
                   if (binary.op == BinaryOpKind::kPow && binary.lhs->is<UnaryOp>()) {
                     printPrimary(out, *binary.lhs);
                   } else {
                     printExpr(out, *binary.lhs);
                   }
                   out << ' ' << spelling(binary.op) << ' ';
                   printExpr(out, *binary.rhs);
                   out << ')';
                 },
                 [&](const Slice& slice) {
                   if (slice.lower) printExpr(out, *slice.lower);
                   out << ':';
                   if (slice.upper) printExpr(out, *slice.upper);
                   if (slice.step) {
                     out << ':';
                     printExpr(out, *slice.step);
                   }
                 },
                 [&](const IfExp& ifExp) {
                   out << '(';
                   printExpr(out, *ifExp.body);
                   out << " if ";
                   printExpr(out, *ifExp.test);
                   out << " else ";
                   printExpr(out, *ifExp.orelse);
                   out << ')';
                 },
                 [&](const Starred& starred) {
                   out << '*';
                   printPrimary(out, *starred.value);
                 },
                 [&](const Dict& dict) {
                   out << '{';
                   for (std::size_t i = 0; i < dict.keys.size(); ++i) {
                     if (i > 0) out << ", ";
                     if (dict.keys[i]) {
                       printExpr(out, *dict.keys[i]);
                       out << ": ";
                     } else {
                       out << "**";
                     }
                     printExpr(out, *dict.values[i]);
                   }
                   out << '}';
                 },
                 [&](const Comprehension& comprehension) {
                   const char* open = "[";
                   const char* close = "]";
                   if (comprehension.kind == ComprehensionKind::kGenerator) {
                     open = "(";
                     close = ")";
                   } else if (comprehension.kind != ComprehensionKind::kList) {
                     open = "{";
                     close = "}";
                   }
                   out << open;
                   printExpr(out, *comprehension.element);
                   if (comprehension.value) {
                     out << ": ";
                     printExpr(out, *comprehension.value);
                   }
                   for (const ComprehensionFor& clause : comprehension.clauses) {
                     out << " for ";
                     if (const auto* tuple = clause.target->as<Tuple>()) {
                       printSeparated(out, tuple->elements);
                       if (tuple->elements.size() == 1) out << ',';
                     } else {
                       printExpr(out, *clause.target);
                     }
                     out << " in ";
                     printExpr(out, *clause.iterable);
                     for (const ExprPtr& condition : clause.conditions) {
                       out << " if ";
                       printExpr(out, *condition);
                     }
                   }
                   out << close;
                 },
                 [&](const NamedExpr& named) {
                   out << '(' << named.target << " := ";
                   printExpr(out, *named.value);
                   out << ')';
                 },
                 [&](const Lambda& lambda) {
                   out << "(lambda";
                   if (!lambda.params.empty()) out << ' ';
                   printParameters(out, lambda.params);
                   out << ": ";
                   printExpr(out, *lambda.body);
                   out << ')';
                 },
             },
             expr.node);
}

void printParameters(std::ostream& out, const std::vector<Parameter>& params) {
  bool keywordOnlyMarked = false;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Parameter& param = params[i];
    if (i > 0) out << ", ";
    if (param.keywordOnly && param.kind == ParameterKind::kNormal && !keywordOnlyMarked) {
      bool afterVarArgs = false;
      for (std::size_t j = 0; j < i; ++j) {
        afterVarArgs |= params[j].kind == ParameterKind::kVarArgs;
      }
      if (!afterVarArgs) out << "*, ";
      keywordOnlyMarked = true;
    }
    if (param.kind == ParameterKind::kVarArgs) {
      out << '*';
      keywordOnlyMarked = true;
    }
    if (param.kind == ParameterKind::kKwArgs) out << "**";
    out << param.name;
    if (param.annotation) {
      out << ": ";
      printExpr(out, *param.annotation);
    }
    if (param.defaultValue) {
      out << (param.annotation ? " = " : "=");
      printExpr(out, *param.defaultValue);
    }
  }
}

void printBody(std::ostream& out, const std::vector<StmtPtr>& body, int indent);

void printAliases(std::ostream& out, const std::vector<ImportAlias>& names) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out << ", ";
    out << names[i].name;
    if (!names[i].asName.empty()) out << " as " << names[i].asName;
  }
}

void printStmt(std::ostream& out, const Stmt& stmt, int indent) {
  std::string pad(static_cast<std::size_t>(indent) * kIndentSpaces, ' ');
  out << pad;
  std::visit(Overloaded{
                 [&](const Import& import) {
                   out << "import ";
                   printAliases(out, import.names);
                   out << '\n';
                 },
                 [&](const ImportFrom& import) {
                   out << "from " << import.module << " import ";
                   printAliases(out, import.names);
                   out << '\n';
                 },
                 [&](const FunctionDef& def) {
                   for (const ExprPtr& decorator : def.decorators) {
                     out << '@';
                     printExpr(out, *decorator);
                     out << '\n' << pad;
                   }
                   out << "def " << def.name << '(';
                   printParameters(out, def.params);
                   out << ')';
                   if (def.returns) {
                     out << " -> ";
                     printExpr(out, *def.returns);
                   }
                   out << ":\n";
                   printBody(out, def.body, indent + 1);
                 },
                 [&](const With& with) {
                   out << "with ";
                   printExpr(out, *with.context);
                   if (!with.target.empty()) out << " as " << with.target;
                   out << ":\n";
                   printBody(out, with.body, indent + 1);
                 },
                 [&](const Assign& assign) {
                   // A tuple target reads as Python writes it: `T4, T5 = ...`.
                   if (const auto* tuple = assign.target->as<Tuple>()) {
                     printSeparated(out, tuple->elements);
                     if (tuple->elements.size() == 1) out << ',';
                   } else {
                     printExpr(out, *assign.target);
                   }
                   out << " = ";
                   for (const ExprPtr& extra : assign.extraTargets) {
                     printExpr(out, *extra);
                     out << " = ";
                   }
                   printExpr(out, *assign.value);
                   out << '\n';
                 },
                 [&](const AugAssign& assign) {
                   printExpr(out, *assign.target);
                   out << ' ' << spelling(assign.op) << "= ";
                   printExpr(out, *assign.value);
                   out << '\n';
                 },
                 [&](const Assert& assertion) {
                   out << "assert ";
                   printExpr(out, *assertion.test);
                   if (assertion.message) {
                     out << ", ";
                     printExpr(out, *assertion.message);
                   }
                   out << '\n';
                 },
                 [&](const Break&) { out << "break\n"; },
                 [&](const Continue&) { out << "continue\n"; },
                 [&](const Raise& raise) {
                   out << "raise";
                   if (raise.exception) {
                     out << ' ';
                     printExpr(out, *raise.exception);
                   }
                   out << '\n';
                 },
                 [&](const Try& tryStmt) {
                   out << "try:\n";
                   printBody(out, tryStmt.body, indent + 1);
                   for (const ExceptHandler& handler : tryStmt.handlers) {
                     out << pad << "except";
                     if (handler.type) {
                       out << ' ';
                       printExpr(out, *handler.type);
                       if (!handler.name.empty()) out << " as " << handler.name;
                     }
                     out << ":\n";
                     printBody(out, handler.body, indent + 1);
                   }
                   if (!tryStmt.orelse.empty()) {
                     out << pad << "else:\n";
                     printBody(out, tryStmt.orelse, indent + 1);
                   }
                   if (!tryStmt.finalbody.empty()) {
                     out << pad << "finally:\n";
                     printBody(out, tryStmt.finalbody, indent + 1);
                   }
                 },
                 [&](const Delete& del) {
                   out << "del ";
                   printSeparated(out, del.targets);
                   out << '\n';
                 },
                 [&](const While& loop) {
                   out << "while ";
                   printExpr(out, *loop.condition);
                   out << ":\n";
                   printBody(out, loop.body, indent + 1);
                 },
                 [&](const ExprStatement& statement) {
                   printExpr(out, *statement.value);
                   out << '\n';
                 },
                 [&](const Pass&) { out << "pass\n"; },
                 [&](const Return& ret) {
                   out << "return";
                   if (ret.value) {
                     out << ' ';
                     printExpr(out, *ret.value);
                   }
                   out << '\n';
                 },
                 [&](const If& branch) {
                   out << "if ";
                   printExpr(out, *branch.condition);
                   out << ":\n";
                   printBody(out, branch.body, indent + 1);
                   if (!branch.orelse.empty()) {
                     out << pad << "else:\n";
                     printBody(out, branch.orelse, indent + 1);
                   }
                 },
                 [&](const For& loop) {
                   out << "for ";
                   if (const auto* tuple = loop.target->as<Tuple>()) {
                     printSeparated(out, tuple->elements);
                     if (tuple->elements.size() == 1) out << ',';
                   } else {
                     printExpr(out, *loop.target);
                   }
                   out << " in ";
                   printExpr(out, *loop.iterable);
                   out << ":\n";
                   printBody(out, loop.body, indent + 1);
                 },
                 [&](const ClassDef& def) {
                   out << "class " << def.name;
                   if (!def.bases.empty()) {
                     out << '(';
                     printSeparated(out, def.bases);
                     out << ')';
                   }
                   out << ":\n";
                   printBody(out, def.body, indent + 1);
                 },
             },
             stmt.node);
}

void printBody(std::ostream& out, const std::vector<StmtPtr>& body, int indent) {
  for (const StmtPtr& stmt : body) printStmt(out, *stmt, indent);
}

}  // namespace

void forEachChild(const Expr& expr, const std::function<void(const Expr&)>& visit) {
  auto each = [&](const std::vector<ExprPtr>& exprs) {
    for (const ExprPtr& element : exprs) visit(*element);
  };
  std::visit(Overloaded{
                 [](const Name&) {},
                 [](const Number&) {},
                 [](const String&) {},
                 [](const Constant&) {},
                 [&](const Attribute& attribute) { visit(*attribute.object); },
                 [&](const Call& call) {
                   visit(*call.callee);
                   each(call.args);
                   for (const Keyword& keyword : call.keywords) {
                     visit(*keyword.value);
                   }
                 },
                 [&](const List& list) { each(list.elements); },
                 [&](const Tuple& tuple) { each(tuple.elements); },
                 [&](const Subscript& subscript) {
                   visit(*subscript.object);
                   visit(*subscript.index);
                 },
                 [&](const UnaryOp& unary) { visit(*unary.operand); },
                 [&](const BinaryOp& binary) {
                   visit(*binary.lhs);
                   visit(*binary.rhs);
                 },
                 [&](const Slice& slice) {
                   if (slice.lower) visit(*slice.lower);
                   if (slice.upper) visit(*slice.upper);
                   if (slice.step) visit(*slice.step);
                 },
                 [&](const IfExp& ifExp) {
                   visit(*ifExp.body);
                   visit(*ifExp.test);
                   visit(*ifExp.orelse);
                 },
                 [&](const Starred& starred) { visit(*starred.value); },
                 [&](const Dict& dict) {
                   for (std::size_t i = 0; i < dict.keys.size(); ++i) {
                     if (dict.keys[i]) visit(*dict.keys[i]);
                     visit(*dict.values[i]);
                   }
                 },
                 [&](const Comprehension& comprehension) {
                   visit(*comprehension.element);
                   if (comprehension.value) visit(*comprehension.value);
                   for (const ComprehensionFor& clause : comprehension.clauses) {
                     visit(*clause.target);
                     visit(*clause.iterable);
                     each(clause.conditions);
                   }
                 },
                 [&](const NamedExpr& named) { visit(*named.value); },
                 [&](const Lambda& lambda) {
                   for (const Parameter& param : lambda.params) {
                     if (param.defaultValue) visit(*param.defaultValue);
                   }
                   visit(*lambda.body);
                 },
             },
             expr.node);
}

std::string_view kindName(const Expr& expr) {
  static constexpr std::string_view kNames[] = {"name",
                                                "number",
                                                "string",
                                                "constant",
                                                "attribute",
                                                "call",
                                                "list",
                                                "tuple",
                                                "subscript",
                                                "unary operation",
                                                "binary operation",
                                                "slice",
                                                "conditional expression",
                                                "starred expression",
                                                "dict",
                                                "comprehension",
                                                "lambda",
                                                "assignment expression"};
  static_assert(std::size(kNames) == std::variant_size_v<Expr::Node>);
  return kNames[expr.node.index()];
}

std::string_view kindName(const Stmt& stmt) {
  static constexpr std::string_view kNames[] = {"import",
                                                "import",
                                                "function definition",
                                                "with",
                                                "assignment",
                                                "expression statement",
                                                "pass",
                                                "return",
                                                "if",
                                                "for",
                                                "class definition",
                                                "augmented assignment",
                                                "assert",
                                                "break",
                                                "continue",
                                                "raise",
                                                "while",
                                                "del",
                                                "try"};
  static_assert(std::size(kNames) == std::variant_size_v<Stmt::Node>);
  return kNames[stmt.node.index()];
}

std::string_view spelling(UnaryOpKind op) {
  switch (op) {
    case UnaryOpKind::kNegate: return "-";
    case UnaryOpKind::kPlus: return "+";
    case UnaryOpKind::kNot: return "not";
    case UnaryOpKind::kInvert: return "~";
  }
  return "?";
}

std::string_view spelling(BinaryOpKind op) {
  switch (op) {
    case BinaryOpKind::kAdd: return "+";
    case BinaryOpKind::kSub: return "-";
    case BinaryOpKind::kMul: return "*";
    case BinaryOpKind::kDiv: return "/";
    case BinaryOpKind::kFloorDiv: return "//";
    case BinaryOpKind::kMod: return "%";
    case BinaryOpKind::kPow: return "**";
    case BinaryOpKind::kMatMul: return "@";
    case BinaryOpKind::kEq: return "==";
    case BinaryOpKind::kNotEq: return "!=";
    case BinaryOpKind::kLess: return "<";
    case BinaryOpKind::kLessEq: return "<=";
    case BinaryOpKind::kGreater: return ">";
    case BinaryOpKind::kGreaterEq: return ">=";
    case BinaryOpKind::kAnd: return "and";
    case BinaryOpKind::kOr: return "or";
    case BinaryOpKind::kIn: return "in";
    case BinaryOpKind::kNotIn: return "not in";
    case BinaryOpKind::kIs: return "is";
    case BinaryOpKind::kIsNot: return "is not";
    case BinaryOpKind::kBitAnd: return "&";
    case BinaryOpKind::kBitOr: return "|";
    case BinaryOpKind::kBitXor: return "^";
    case BinaryOpKind::kLeftShift: return "<<";
    case BinaryOpKind::kRightShift: return ">>";
  }
  return "?";
}

bool isComparison(BinaryOpKind op) {
  switch (op) {
    case BinaryOpKind::kEq:
    case BinaryOpKind::kNotEq:
    case BinaryOpKind::kLess:
    case BinaryOpKind::kLessEq:
    case BinaryOpKind::kGreater:
    case BinaryOpKind::kGreaterEq:
    case BinaryOpKind::kIn:
    case BinaryOpKind::kNotIn:
    case BinaryOpKind::kIs:
    case BinaryOpKind::kIsNot: return true;
    default: return false;
  }
}

std::string toString(const Expr& expr) {
  std::ostringstream out;
  printExpr(out, expr);
  return out.str();
}

std::string toString(const Stmt& stmt, int indent) {
  std::ostringstream out;
  printStmt(out, stmt, indent);
  return out.str();
}

std::string toString(const Module& module) {
  std::ostringstream out;
  printBody(out, module.body, 0);
  return out.str();
}

}  // namespace fuserlab::frontend
