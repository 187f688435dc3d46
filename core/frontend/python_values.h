// Python's semantics for the plain values of a script — lists, tuples,
// dicts, strings, slices — as the Python around nvFuser's definitions uses
// them: equality and identity, `in`, iteration, indexing and slicing,
// subscript assignment, `+` and `*` on sequences, and the methods of lists,
// dicts and strings (the builtin functions are python_builtins.h). Every size a script can make is
// bounded (kMaxSequenceElements), so no script exhausts memory. Internal to the frontend.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/frontend/call_arguments.h"
#include "core/frontend/script_ast.h"
#include "core/frontend/script_value.h"

namespace fuserlab::frontend {

//! The most elements a list, tuple, dict, string or range may have.
inline constexpr size_t kMaxSequenceElements = size_t{1} << 20;

//! An int or a bool (Python's bool is an int).
bool isIntLike(const Value& value);
//! The int of an int or a bool.
int64_t intOf(const Value& value);
//! The elements of the iterable argument `name` (empty when absent): the
//! one argument of list(), tuple(), sorted(), ...
ValueList iterableArgument(const BoundArguments& args, std::string_view name);

//! Python's `==` on plain values (fusion values compare by identity).
bool valuesEqual(const Value& lhs, const Value& rhs);

//! Python's `is`: identity for lists and dicts, equality for singletons
//! (None, bools, DataTypes, modules) and small values.
bool valuesIdentical(const Value& lhs, const Value& rhs);

//! `item in container`: a list, tuple, dict (its keys) or string.
bool containsValue(const Value& container, const Value& item, const SourceLocation& location);

//! The elements `for x in value` visits: a list's or tuple's elements, a
//! dict's keys, a string's characters.
ValueList iterateValue(const Value& value, const SourceLocation& location);

//! `object[index]` for a list, tuple, string or dict; an index may be a
//! slice. Nullopt when `object` is none of those (the caller decides).
std::optional<Value> subscriptValue(const Value& object, const Value& index,
                                    const SourceLocation& location);

//! `object[index] = value` on a list or dict.
void assignSubscript(const Value& object, const Value& index, const Value& value,
                     const SourceLocation& location);

//! `del object[index]` on a list (an index or a slice) or a dict.
void deleteSubscript(const Value& object, const Value& index, const SourceLocation& location);

//! `+`, `*`, `<`, ... on lists, tuples and strings (`[-1] * rank`,
//! `shape[:2] + [n]`, `"a" + "b"`); nullopt when neither side is one.
std::optional<Value> sequenceArithmetic(BinaryOpKind op, const Value& lhs, const Value& rhs,
                                        const SourceLocation& location);

//! The method `name` of a list, tuple, dict or string called with `call`;
//! nullopt when the receiver has no such method.
std::optional<Value> callPlainMethod(const Value& receiver, const std::string& name,
                                     const EvaluatedCall& call);

//! Whether `receiver` is a list, tuple, dict or string with a method `name`.
bool hasPlainMethod(const Value& receiver, std::string_view name);

//! Python's `<` for sorted(), min() and max(): numbers, strings, and
//! lists or tuples element by element.
bool valueLess(const Value& a, const Value& b, const SourceLocation& location);

//! A bounded list: a UserError at `location` past kMaxSequenceElements.
void checkSequenceSize(size_t size, const SourceLocation& location);

//! How many elements one script may copy or create in all (lists built,
//! repeated, sliced, iterated, compared, printed): a bound on the reader's
//! time, as kMaxScriptSteps bounds its statements, and on its memory (a
//! Value is 120 bytes: twenty million retained took 2.4 GB).
inline constexpr int64_t kMaxElementWork = 4'000'000;

//! Charges `elements` to this thread's running script; a UserError at
//! `location` past kMaxElementWork.
void chargeElementWork(size_t elements, const SourceLocation& location);

//! Starts a new script's count.
void resetElementWork();

//! Python's repr-like text of a value for messages and str().
std::string valueText(const Value& value);

}  // namespace fuserlab::frontend
