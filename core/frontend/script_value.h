// The values a FusionDefinition script computes while FuserLab reads it: the
// Python literals (numbers, strings, lists, tuples), the fusion's tensors and
// scalars, dtypes, and handles on what the script can call (`fd`, `fd.ops`,
// `torch`, a tensor's methods). Internal to the frontend.
//
// Invariant: a Value is plain data; Tensor and Scalar values point into the
// Fusion being read, which outlives every Value made from it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/fusion.h"

namespace fuserlab::frontend {

struct Value;
using ValueList = std::vector<Value>;
//! A function of the script (a `def` or a `lambda`); interpreter.h says
//! what it holds.
struct FunctionObject;

//! One value of the script.
struct Value {
  enum class Kind : uint8_t {
    kNone,
    kBool,
    kInt,
    kFloat,
    kString,
    kDataType,    //!< `DataType.Float`
    kTorchDtype,  //!< `torch.float32`
    kTensor,      //!< a TensorView of the fusion being read
    kScalar,      //!< a Scalar of the fusion being read
    kList,
    kTuple,
    kNamespace,     //!< a module or a function in one: "torch.testing", "math"
    kFd,            //!< the FusionDefinition (`fd`)
    kFdOps,         //!< `fd.ops`
    kMethod,        //!< `receiver.name`, to be called
    kDefinition,    //!< a `def` of the script (index into the definitions)
    kInputTensor,   //!< a torch constructor call of the inputs block
    kDeviceMesh,    //!< `nvfuser.DeviceMesh(range(d))`; elements: device ids
    kParallelType,  //!< `ParallelType.mesh_x`; intValue: the ir::ParallelType
    kIterDomain,    //!< `T.axis(i)`: val is the tensor, intValue the loop axis
    kSched,         //!< `fd.sched`
    kFusionHandle,  //!< `fd.fusion` (inputs(), outputs())
    kClass,         //!< a FusionDefinition subclass of the script (by name)
    kDict,          //!< elements: key, value, key, value, ... in insertion order
    kSlice,         //!< `a:b:c` in a subscript; elements: lower, upper, step
    kFunction,      //!< a `def` or `lambda` of the script
    kOpaque,        //!< a run-time value FuserLab does not compute (text: what)
  };

  Kind kind = Kind::kNone;
  bool boolValue = false;
  int64_t intValue = 0;  //!< kInt; kDefinition and kInputTensor: the index
  double floatValue = 0.0;
  std::string text;                         //!< kString; kNamespace: the dotted path; kMethod: name
  ir::DataType dtype = ir::DataType::Null;  //!< kDataType, kTorchDtype
  ir::Val* val = nullptr;                   //!< kTensor, kScalar
  //! kList, kTuple, kDict, kSlice. Shared as Python shares a list: an
  //! append through one name shows through every other.
  std::shared_ptr<ValueList> elements;
  std::shared_ptr<const Value> receiver;           //!< kMethod
  std::shared_ptr<const FunctionObject> function;  //!< kFunction

  static Value none() { return Value{}; }
  static Value boolean(bool value);
  static Value integer(int64_t value);
  static Value floating(double value);
  static Value string(std::string value);
  static Value dataType(ir::DataType dtype);
  static Value torchDtype(ir::DataType dtype);
  //! kTensor or kScalar, as the Val is.
  static Value fusionVal(ir::Val* val);
  static Value list(ValueList elements);
  static Value tuple(ValueList elements);
  static Value nameSpace(std::string path);
  //! The FusionDefinition being built as number `builder` of the script.
  static Value fd(int64_t builder = 0);
  static Value fdOps(int64_t builder = 0);
  static Value method(Value receiver, std::string name);
  static Value definition(size_t index);
  static Value inputTensor(size_t index);
  static Value deviceMesh(const ir::DeviceMesh& mesh);
  static Value parallelType(ir::ParallelType type);
  static Value iterDomain(ir::TensorView* tv, int64_t loopAxis);
  static Value sched(int64_t builder = 0);
  static Value fusionHandle(int64_t builder = 0);
  static Value classNamed(std::string name);
  static Value dict(ValueList keysAndValues);
  static Value slice(Value lower, Value upper, Value step);
  static Value functionValue(std::shared_ptr<const FunctionObject> function);
  //! A value the script computes at run time only, e.g. what fd.execute
  //! returns; `what` names it in messages.
  static Value opaque(std::string what);
  //! The mesh of a kDeviceMesh value.
  ir::DeviceMesh mesh() const;

  bool is(Kind k) const { return kind == k; }
  bool isNone() const { return kind == Kind::kNone; }
  //! A Python int, float or bool.
  bool isNumber() const {
    return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool;
  }
  bool isSequence() const { return kind == Kind::kList || kind == Kind::kTuple; }
  bool isFusionVal() const { return kind == Kind::kTensor || kind == Kind::kScalar; }
  ir::TensorView* tensor() const;
  ir::Scalar* scalar() const;
  //! The elements of a list or tuple (empty for anything else).
  const ValueList& items() const;
  //! A number as a double (bools are 0 and 1).
  double toDouble() const;
};

//! What an error message calls the value's kind: "a list", "an int",
//! "a tensor", "None", "the module 'torch'".
std::string describeKind(const Value& value);

//! `text` quoted for an error message, shortened when it is very long.
std::string quoteForMessage(std::string_view text);

//! The lists, tuples, dicts and slices made while one lives, emptied when it
//! ends. A list that holds itself (`a = []; a.append(a)`), or two that hold
//! each other, keep their shared elements alive after every name is gone:
//! Python's cycle collector frees them, and the arena does it for a script's
//! interpretation (interpretScript). Arenas nest; one is current per thread.
class ValueArena {
 public:
  ValueArena();
  ~ValueArena();
  ValueArena(const ValueArena&) = delete;
  ValueArena& operator=(const ValueArena&) = delete;

  //! Records `elements` with the current arena, if there is one.
  static void track(const std::shared_ptr<ValueList>& elements);

 private:
  std::vector<std::weak_ptr<ValueList>> made_;
  size_t pruneAt_ = 1024;  //!< size at which expired entries are dropped
  ValueArena* previous_;
};

}  // namespace fuserlab::frontend
