// Evaluates the expressions of a FusionDefinition script without Python: names
// through the local scope, the module's names (imports, literal assignments,
// definitions) and a few builtins (torch, math, DataType, float, int, ...);
// literals and their arithmetic; lists, tuples and indexing; attributes of
// modules (DataType.Float, torch.bfloat16, math.pi). What calls and fusion
// values mean is left to subclasses: the definition reader (fd.*, fd.ops.*,
// T.size) and the inputs-block reader (torch constructors).
//
// Every UserError leaving evaluate() carries a location: an error raised
// without one (by an op builder, say) gets the innermost expression's.
// Recursion follows the syntax tree, whose height the parser bounds.
// Internal to the frontend.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/frontend/call_arguments.h"
#include "core/frontend/script_ast.h"
#include "core/frontend/script_value.h"

namespace fuserlab::frontend {

//! Names to values, ordered so that nothing depends on hashing.
using NameTable = std::map<std::string, Value, std::less<>>;

//! Binds the names of an `import` or `from ... import` to module paths.
void bindImport(const Stmt& stmt, NameTable& names);

//! The dotted text of a callee such as `fd.ops.sum` or `torch.randn`, for
//! messages; the expression's kind ("call", ...) when it is not a dotted name.
std::string dottedName(const Expr& expr);

//! Binds `value` to an assignment target: a name, or a tuple or list of
//! names (nested) unpacking a list or tuple of as many values. `bind` is
//! called once per name, in order.
void assignTargets(const Expr& target, const Value& value,
                   const std::function<void(const std::string&, const Value&)>& bind);

//! How many statements, loop turns and comprehension elements one script
//! may run: a script past it is a UserError, never a hang.
inline constexpr int64_t kMaxScriptSteps = 500'000;

//! How deep evaluation may nest, counting through calls of script functions.
inline constexpr int kMaxEvaluationDepth = 400;

class ExpressionEvaluator {
 public:
  //! `globals` must outlive the evaluator.
  explicit ExpressionEvaluator(const NameTable& globals) : globals_(globals) {}
  virtual ~ExpressionEvaluator() = default;

  //! The value of `expr`; throws UserError (with a location) on anything the
  //! dialect does not give a meaning.
  Value evaluate(const Expr& expr);

  //! Python's call of `callee` with evaluated arguments.
  Value call(const Value& callee, const EvaluatedCall& call);

  //! Binds `value` to an assignment target: names (through bindName),
  //! subscripts, attributes (through assignAttribute), tuples and lists of
  //! targets with at most one starred.
  void assign(const Expr& target, const Value& value);

 protected:
  //! Binds a name of the innermost scope.
  virtual void bindName(const std::string& name, const Value& value,
                        const SourceLocation& location);
  //! `object.name = value`; the base refuses.
  virtual void assignAttribute(const Value& object, const std::string& name, const Value& value,
                               const SourceLocation& location);
  //! The value of a `lambda`; the base has no functions and refuses.
  virtual Value makeLambda(const Lambda& lambda, const Expr& expr);
  //! `tensor[index]` of a torch tensor the script made; the base gives a
  //! run-time value (an eager computation).
  virtual Value indexTorchTensor(const Value& tensor, const Value& index,
                                 const SourceLocation& location);
  //! `object.name` for an object already evaluated.
  Value attributeValue(const Value& object, const Attribute& attribute, const Expr& expr);
  //! One step of the script's budget (kMaxScriptSteps).
  void countStep(const SourceLocation& location);

  //! Comprehension variables, innermost last: Python 3 gives each
  //! comprehension its own scope. A function call runs with none of them.
  std::vector<NameTable> scopes_;

  //! A name of the innermost scope, or null.
  virtual const Value* lookupLocal(std::string_view name) const;
  //! `object.name` for objects the base does not know (it knows modules).
  virtual Value attributeOf(const Value& object, const Attribute& attribute, const Expr& expr);
  //! Calls `callee` (already evaluated) with the evaluated arguments; the
  //! base knows the builtins float, int, bool and abs.
  virtual Value callValue(const Value& callee, const EvaluatedCall& call);
  //! A binary operation with a tensor or scalar operand.
  virtual Value binaryOnFusionValues(BinaryOpKind op, const Value& lhs, const Value& rhs,
                                     const SourceLocation& location);
  //! A unary operation on a tensor or scalar.
  virtual Value unaryOnFusionValue(UnaryOpKind op, const Value& operand,
                                   const SourceLocation& location);

 private:
  Value evaluateNode(const Expr& expr);
  Value evaluateComprehension(const Comprehension& comprehension, const Expr& expr);
  void runClauses(const Comprehension& comprehension, size_t clause, ValueList& out);
  Value evaluateDict(const Dict& dict);
  ValueList evaluateElements(const std::vector<ExprPtr>& elements);
  Value callWithKey(const std::string& path, const EvaluatedCall& call);
  Value lookupName(const std::string& name, const SourceLocation& location);
  Value evaluateAttribute(const Attribute& attribute, const Expr& expr);
  Value evaluateCall(const Call& call, const Expr& expr);
  Value evaluateSubscript(const Subscript& subscript, const Expr& expr);
  Value evaluateBinary(const BinaryOp& binary, const Expr& expr);
  Value callBuiltin(const std::string& path, const EvaluatedCall& call);

  const NameTable& globals_;
  int64_t steps_ = 0;
  int evaluationDepth_ = 0;
  bool opaqueComprehension_ = false;
};

}  // namespace fuserlab::frontend
