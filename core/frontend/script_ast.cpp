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
  auto [end, error] =
      std::to_chars(buffer, buffer + sizeof(buffer), number.floatValue);
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
      case '\\':
        out += "\\\\";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
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
  std::visit(
      Overloaded{
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
              out << call.keywords[i].name << '=';
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
            printExpr(out, *subscript.index);
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
      },
      expr.node);
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
                   out << "def " << def.name << '(';
                   for (std::size_t i = 0; i < def.params.size(); ++i) {
                     const Parameter& param = def.params[i];
                     if (i > 0) out << ", ";
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
                   printExpr(out, *assign.value);
                   out << '\n';
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

void printBody(std::ostream& out, const std::vector<StmtPtr>& body,
               int indent) {
  for (const StmtPtr& stmt : body) printStmt(out, *stmt, indent);
}

}  // namespace

void forEachChild(const Expr& expr,
                  const std::function<void(const Expr&)>& visit) {
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
                                                "binary operation"};
  static_assert(std::size(kNames) == std::variant_size_v<Expr::Node>);
  return kNames[expr.node.index()];
}

std::string_view kindName(const Stmt& stmt) {
  static constexpr std::string_view kNames[] = {
      "import", "import",     "function definition",
      "with",   "assignment", "expression statement",
      "pass",   "return",     "if",
      "for",    "class definition"};
  static_assert(std::size(kNames) == std::variant_size_v<Stmt::Node>);
  return kNames[stmt.node.index()];
}

std::string_view spelling(UnaryOpKind op) {
  switch (op) {
    case UnaryOpKind::kNegate:
      return "-";
    case UnaryOpKind::kPlus:
      return "+";
    case UnaryOpKind::kNot:
      return "not";
    case UnaryOpKind::kInvert:
      return "~";
  }
  return "?";
}

std::string_view spelling(BinaryOpKind op) {
  switch (op) {
    case BinaryOpKind::kAdd:
      return "+";
    case BinaryOpKind::kSub:
      return "-";
    case BinaryOpKind::kMul:
      return "*";
    case BinaryOpKind::kDiv:
      return "/";
    case BinaryOpKind::kFloorDiv:
      return "//";
    case BinaryOpKind::kMod:
      return "%";
    case BinaryOpKind::kPow:
      return "**";
    case BinaryOpKind::kMatMul:
      return "@";
    case BinaryOpKind::kEq:
      return "==";
    case BinaryOpKind::kNotEq:
      return "!=";
    case BinaryOpKind::kLess:
      return "<";
    case BinaryOpKind::kLessEq:
      return "<=";
    case BinaryOpKind::kGreater:
      return ">";
    case BinaryOpKind::kGreaterEq:
      return ">=";
    case BinaryOpKind::kAnd:
      return "and";
    case BinaryOpKind::kOr:
      return "or";
  }
  return "?";
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
