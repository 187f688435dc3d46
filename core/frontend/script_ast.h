// The syntax tree of a FusionDefinition script: the subset of Python that
// nvFuser repro scripts use, parsed but not yet understood (which names are
// ops, what a call means, is for the translator). Nodes are plain structs: an
// Expr or a Stmt holds one alternative of a std::variant and its
// SourceLocation, the position of the node's first character; children are
// owned through std::unique_ptr.
//
// Invariant kept by the parser: no expression tree is taller than
// kMaxNestingDepth and no block nests deeper, so walkers may recurse.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/ir/error.h"

namespace fuserlab::frontend {

//! How deep expressions and blocks may nest; deeper input is a UserError.
inline constexpr int kMaxNestingDepth = 200;

//! The most keyword arguments one call and parameters one definition may
//! have. Each is checked against the others by name, and a call binds them
//! by name: 100,000 keyword arguments in one call took 20 s to refuse.
inline constexpr std::size_t kMaxNamedArguments = 1000;

//! A node on a longer line carries only this many bytes of the line's text
//! (none when its column lies beyond them), so that a machine-written
//! one-line script cannot make the tree quadratic in size.
inline constexpr std::size_t kMaxNodeLineTextBytes = 512;

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

// ---- Expressions ----------------------------------------------------------

//! A variable reference: `fd`, `T0`, `DataType`.
struct Name {
  std::string id;
};

//! A numeric literal. Both values are set; `isInt` says how it was written
//! (`2` rather than `2.0` or `2e0`). A minus sign is a UnaryOp around it.
struct Number {
  std::int64_t intValue = 0;
  double floatValue = 0.0;
  bool isInt = false;
};

//! A string literal with its escapes decoded; adjacent literals are joined.
//! An f-string is kept as its text, braces and all.
struct String {
  std::string value;
  bool isBytes = false;
  bool isFormat = false;
};

enum class ConstantKind { kTrue, kFalse, kNone };

//! `True`, `False` or `None`.
struct Constant {
  ConstantKind kind = ConstantKind::kNone;
};

//! `object.name`.
struct Attribute {
  ExprPtr object;
  std::string name;
  SourceLocation nameLocation;
};

//! `name=value` in a call.
struct Keyword {
  std::string name;
  ExprPtr value;
  SourceLocation location;  //!< Where the name is.
};

//! `callee(args..., name=value...)`; keywords keep their written order.
struct Call {
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  SourceLocation openParen;
};

//! `[a, b]`.
struct List {
  std::vector<ExprPtr> elements;
};

//! `(a, b)`, `a, b` or `()`.
struct Tuple {
  std::vector<ExprPtr> elements;
};

//! `object[index]`; `x[i, j]` has a Tuple index; `x[1:]` a Slice index.
struct Subscript {
  ExprPtr object;
  ExprPtr index;
};

//! `lower:upper:step` inside a subscript; each part may be absent (null).
struct Slice {
  ExprPtr lower;
  ExprPtr upper;
  ExprPtr step;
};

//! `body if test else orelse`.
struct IfExp {
  ExprPtr test;
  ExprPtr body;
  ExprPtr orelse;
};

//! `*value` in a call, a list or tuple display, or an assignment target.
struct Starred {
  ExprPtr value;
};

//! `{k: v, ...}`; a null key is `**mapping`.
struct Dict {
  std::vector<ExprPtr> keys;
  std::vector<ExprPtr> values;
};

//! One `for target in iterable if condition ...` of a comprehension.
struct ComprehensionFor {
  ExprPtr target;
  ExprPtr iterable;
  std::vector<ExprPtr> conditions;
};

enum class ComprehensionKind { kList, kGenerator, kSet, kDict };

//! `[element for ...]`, `(element for ...)`, `{element for ...}` or
//! `{key: value for ...}` (element is the key, value the value).
struct Comprehension {
  ComprehensionKind kind = ComprehensionKind::kList;
  ExprPtr element;
  ExprPtr value;  //!< dict comprehensions only
  std::vector<ComprehensionFor> clauses;
};

enum class ParameterKind { kNormal, kVarArgs, kKwArgs };

//! One parameter of a `def` or `lambda`: `fd`, `fd: FusionDefinition`,
//! `x=1`, `*args`, `**kwargs`; those after `*` or `*args` are keyword-only.
struct Parameter {
  std::string name;
  ExprPtr annotation;    //!< Null without one.
  ExprPtr defaultValue;  //!< Null without one.
  SourceLocation location;
  ParameterKind kind = ParameterKind::kNormal;
  bool keywordOnly = false;
};

//! `name := value`.
struct NamedExpr {
  std::string target;
  ExprPtr value;
};

//! `lambda params: body`.
struct Lambda {
  std::vector<Parameter> params;
  ExprPtr body;
};

enum class UnaryOpKind { kNegate, kPlus, kNot, kInvert };

//! `-x`, `+x`, `not x`, `~x`.
struct UnaryOp {
  UnaryOpKind op = UnaryOpKind::kNegate;
  ExprPtr operand;
};

enum class BinaryOpKind {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kMatMul,
  kEq,
  kNotEq,
  kLess,
  kLessEq,
  kGreater,
  kGreaterEq,
  kAnd,
  kOr,
  kIn,
  kNotIn,
  kIs,
  kIsNot,
  kBitAnd,
  kBitOr,
  kBitXor,
  kLeftShift,
  kRightShift,
};

//! True for ==, !=, <, <=, >, >=, in, not in, is, is not.
bool isComparison(BinaryOpKind op);

//! `lhs op rhs`: arithmetic, one comparison (no chains), `and`, `or`.
struct BinaryOp {
  BinaryOpKind op = BinaryOpKind::kAdd;
  ExprPtr lhs;
  ExprPtr rhs;
  SourceLocation opLocation;
};

//! An expression node.
struct Expr {
  using Node =
      std::variant<Name, Number, String, Constant, Attribute, Call, List, Tuple, Subscript, UnaryOp,
                   BinaryOp, Slice, IfExp, Starred, Dict, Comprehension, Lambda, NamedExpr>;
  Node node;
  SourceLocation location;
  //! Nodes on the longest path down to a leaf (1 for a leaf).
  int height = 1;

  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(node);
  }
  template <typename T>
  const T* as() const {
    return std::get_if<T>(&node);
  }
  template <typename T>
  T* as() {
    return std::get_if<T>(&node);
  }
};

// ---- Statements -----------------------------------------------------------

//! One `a.b.c` or `a.b.c as d` of an import.
struct ImportAlias {
  std::string name;    //!< Dotted: "torch.testing".
  std::string asName;  //!< Empty without `as`.
  SourceLocation location;
};

//! `import torch`, `import torch.testing as tt, numpy`.
struct Import {
  std::vector<ImportAlias> names;
};

//! `from nvfuser import FusionDefinition, DataType`; `*` is a name "*".
struct ImportFrom {
  std::string module;
  std::vector<ImportAlias> names;
};

//! `@decorator ... def name(params) -> returns: body`.
struct FunctionDef {
  std::string name;
  std::vector<Parameter> params;
  ExprPtr returns;  //!< Null without `->`.
  std::vector<StmtPtr> body;
  std::vector<ExprPtr> decorators;  //!< Read, never applied.
};

//! `with context as target: body`, one context manager.
struct With {
  ExprPtr context;
  std::string target;  //!< Empty without `as`.
  SourceLocation targetLocation;
  std::vector<StmtPtr> body;
};

//! `target = value` (or `a = b = value`: `extraTargets` holds `b`).
//! A target is a name, an attribute, a subscript, or a tuple or list of
//! targets, one of which may be starred: `a, *rest = ...`.
struct Assign {
  ExprPtr target;
  ExprPtr value;
  std::vector<ExprPtr> extraTargets;
};

//! `target op= value`: a name, attribute or subscript.
struct AugAssign {
  ExprPtr target;
  BinaryOpKind op = BinaryOpKind::kAdd;
  ExprPtr value;
};

//! `assert test` or `assert test, message`.
struct Assert {
  ExprPtr test;
  ExprPtr message;  //!< Null without one.
};

//! `break`.
struct Break {};

//! `continue`.
struct Continue {};

//! `raise` or `raise exception`.
struct Raise {
  ExprPtr exception;  //!< Null for a bare `raise`.
};

//! `except Type as name: body` (a bare `except:` has no type).
struct ExceptHandler {
  ExprPtr type;      //!< Null for a bare `except:`.
  std::string name;  //!< Empty without `as`.
  std::vector<StmtPtr> body;
  SourceLocation location;
};

//! `try: body`, its handlers, `else:` and `finally:`.
struct Try {
  std::vector<StmtPtr> body;
  std::vector<ExceptHandler> handlers;
  std::vector<StmtPtr> orelse;
  std::vector<StmtPtr> finalbody;
};

//! `del a, b[i]`.
struct Delete {
  std::vector<ExprPtr> targets;
};

//! `while condition: body`.
struct While {
  ExprPtr condition;
  std::vector<StmtPtr> body;
};

//! An expression used as a statement, mostly a call: `fd.add_output(T1)`.
struct ExprStatement {
  ExprPtr value;
};

//! `pass`.
struct Pass {};

//! `return` or `return value`.
struct Return {
  ExprPtr value;  //!< Null for a bare `return`.
};

//! `if condition: body else: orelse`; an `elif` is an If alone in `orelse`.
struct If {
  ExprPtr condition;
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;
};

//! `for target in iterable: body` (target a name, or a tuple of targets).
struct For {
  ExprPtr target;
  ExprPtr iterable;
  std::vector<StmtPtr> body;
};

//! `class Name(Base, ...): body`, as the FusionDefinition subclasses of
//! nvFuser's multi-device tests are written.
struct ClassDef {
  std::string name;
  std::vector<ExprPtr> bases;
  std::vector<StmtPtr> body;
};

//! A statement node.
struct Stmt {
  using Node =
      std::variant<Import, ImportFrom, FunctionDef, With, Assign, ExprStatement, Pass, Return, If,
                   For, ClassDef, AugAssign, Assert, Break, Continue, Raise, While, Delete, Try>;
  Node node;
  SourceLocation location;

  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(node);
  }
  template <typename T>
  const T* as() const {
    return std::get_if<T>(&node);
  }
  template <typename T>
  T* as() {
    return std::get_if<T>(&node);
  }
};

//! A whole script.
struct Module {
  std::string fileName;
  std::vector<StmtPtr> body;
};

// ---- Inspection -----------------------------------------------------------

//! Calls `visit` on each direct child expression of `expr`, in source order.
void forEachChild(const Expr& expr, const std::function<void(const Expr&)>& visit);

//! What an error message calls the node: "name", "call", "binary operation".
std::string_view kindName(const Expr& expr);
//! What an error message calls the node: "import", "assignment", "if".
std::string_view kindName(const Stmt& stmt);

//! The operator as written: "-", "not", "//", "==", "and".
std::string_view spelling(UnaryOpKind op);
std::string_view spelling(BinaryOpKind op);

//! Python source for an expression, every binary operation in parentheses so
//! the tree's shape shows: `fd.ops.add(T0, ((2 * S1) + 1))`. It parses back
//! to the same tree.
std::string toString(const Expr& expr);

//! Python source for a statement and its body, indented by 4 * `indent`
//! spaces, one statement a line.
std::string toString(const Stmt& stmt, int indent = 0);

//! Python source for the whole module; parsing it gives the same tree.
std::string toString(const Module& module);

}  // namespace fuserlab::frontend
