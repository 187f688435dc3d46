#include "core/frontend/script_value.h"

#include <algorithm>

namespace fuserlab::frontend {
namespace {

const ValueList kNoItems;

constexpr size_t kMaxQuotedChars = 60;

}  // namespace

Value Value::boolean(bool value) {
  Value v;
  v.kind = Kind::kBool;
  v.boolValue = value;
  return v;
}

Value Value::integer(int64_t value) {
  Value v;
  v.kind = Kind::kInt;
  v.intValue = value;
  return v;
}

Value Value::floating(double value) {
  Value v;
  v.kind = Kind::kFloat;
  v.floatValue = value;
  return v;
}

Value Value::string(std::string value) {
  Value v;
  v.kind = Kind::kString;
  v.text = std::move(value);
  return v;
}

Value Value::dataType(ir::DataType dtype) {
  Value v;
  v.kind = Kind::kDataType;
  v.dtype = dtype;
  return v;
}

Value Value::torchDtype(ir::DataType dtype) {
  Value v;
  v.kind = Kind::kTorchDtype;
  v.dtype = dtype;
  return v;
}

Value Value::fusionVal(ir::Val* val) {
  Value v;
  v.kind = val->isA<ir::TensorView>() ? Kind::kTensor : Kind::kScalar;
  v.val = val;
  return v;
}

Value Value::list(ValueList elements) {
  Value v;
  v.kind = Kind::kList;
  v.elements = std::make_shared<ValueList>(std::move(elements));
  ValueArena::track(v.elements);
  return v;
}

Value Value::tuple(ValueList elements) {
  Value v;
  v.kind = Kind::kTuple;
  v.elements = std::make_shared<ValueList>(std::move(elements));
  ValueArena::track(v.elements);
  return v;
}

Value Value::dict(ValueList keysAndValues) {
  Value v;
  v.kind = Kind::kDict;
  v.elements = std::make_shared<ValueList>(std::move(keysAndValues));
  ValueArena::track(v.elements);
  return v;
}

Value Value::slice(Value lower, Value upper, Value step) {
  Value v;
  v.kind = Kind::kSlice;
  v.elements =
      std::make_shared<ValueList>(ValueList{std::move(lower), std::move(upper), std::move(step)});
  ValueArena::track(v.elements);
  return v;
}

Value Value::functionValue(std::shared_ptr<const FunctionObject> function) {
  Value v;
  v.kind = Kind::kFunction;
  v.function = std::move(function);
  return v;
}

Value Value::opaque(std::string what) {
  Value v;
  v.kind = Kind::kOpaque;
  v.text = std::move(what);
  return v;
}

Value Value::deviceMesh(const ir::DeviceMesh& mesh) {
  ValueList ids;
  for (int64_t device : mesh.devices()) ids.push_back(Value::integer(device));
  Value v = Value::list(std::move(ids));
  v.kind = Kind::kDeviceMesh;
  return v;
}

ir::DeviceMesh Value::mesh() const {
  std::vector<int64_t> devices;
  if (elements) {
    for (const Value& id : *elements) devices.push_back(id.intValue);
  }
  return ir::DeviceMesh(std::move(devices));
}

Value Value::parallelType(ir::ParallelType type) {
  Value v;
  v.kind = Kind::kParallelType;
  v.intValue = static_cast<int64_t>(type);
  return v;
}

Value Value::iterDomain(ir::TensorView* tv, int64_t loopAxis) {
  Value v;
  v.kind = Kind::kIterDomain;
  v.val = tv;
  v.intValue = loopAxis;
  return v;
}

Value Value::sched(int64_t builder) {
  Value v;
  v.kind = Kind::kSched;
  v.intValue = builder;
  return v;
}

Value Value::fusionHandle(int64_t builder) {
  Value v;
  v.kind = Kind::kFusionHandle;
  v.intValue = builder;
  return v;
}

Value Value::classNamed(std::string name) {
  Value v;
  v.kind = Kind::kClass;
  v.text = std::move(name);
  return v;
}

Value Value::nameSpace(std::string path) {
  Value v;
  v.kind = Kind::kNamespace;
  v.text = std::move(path);
  return v;
}

Value Value::fd(int64_t builder) {
  Value v;
  v.kind = Kind::kFd;
  v.intValue = builder;
  return v;
}

Value Value::fdOps(int64_t builder) {
  Value v;
  v.kind = Kind::kFdOps;
  v.intValue = builder;
  return v;
}

Value Value::method(Value receiver, std::string name) {
  Value v;
  v.kind = Kind::kMethod;
  v.text = std::move(name);
  v.receiver = std::make_shared<const Value>(std::move(receiver));
  return v;
}

Value Value::definition(size_t index) {
  Value v;
  v.kind = Kind::kDefinition;
  v.intValue = static_cast<int64_t>(index);
  return v;
}

Value Value::inputTensor(size_t index) {
  Value v;
  v.kind = Kind::kInputTensor;
  v.intValue = static_cast<int64_t>(index);
  return v;
}

ir::TensorView* Value::tensor() const {
  return kind == Kind::kTensor ? val->as<ir::TensorView>() : nullptr;
}

ir::Scalar* Value::scalar() const {
  return kind == Kind::kScalar ? val->as<ir::Scalar>() : nullptr;
}

const ValueList& Value::items() const { return isSequence() && elements ? *elements : kNoItems; }

double Value::toDouble() const {
  switch (kind) {
    case Kind::kBool: return boolValue ? 1.0 : 0.0;
    case Kind::kInt: return static_cast<double>(intValue);
    case Kind::kFloat: return floatValue;
    default: return 0.0;
  }
}

std::string quoteForMessage(std::string_view text) {
  if (text.size() <= kMaxQuotedChars) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kMaxQuotedChars)) + "...'";
}

std::string describeKind(const Value& value) {
  using Kind = Value::Kind;
  switch (value.kind) {
    case Kind::kNone: return "None";
    case Kind::kBool: return "a bool";
    case Kind::kInt: return "an int";
    case Kind::kFloat: return "a float";
    case Kind::kString: return "a string";
    case Kind::kDataType: return "a DataType";
    case Kind::kTorchDtype: return "a torch dtype";
    case Kind::kTensor: return "a tensor";
    case Kind::kScalar: return "a scalar";
    case Kind::kList: return "a list";
    case Kind::kTuple: return "a tuple";
    case Kind::kNamespace: return quoteForMessage(value.text);
    case Kind::kFd: return "the FusionDefinition";
    case Kind::kFdOps: return "fd.ops";
    case Kind::kMethod: return "the method " + quoteForMessage(value.text);
    case Kind::kDefinition: return "a fusion definition function";
    case Kind::kInputTensor: return "a torch tensor";
    case Kind::kDeviceMesh: return "a DeviceMesh";
    case Kind::kParallelType: return "a ParallelType";
    case Kind::kIterDomain: return "an IterDomain (T.axis(i))";
    case Kind::kSched: return "fd.sched";
    case Kind::kFusionHandle: return "fd.fusion";
    case Kind::kClass: return "the class " + quoteForMessage(value.text);
    case Kind::kDict: return "a dict";
    case Kind::kSlice: return "a slice";
    case Kind::kFunction: return "a function";
    case Kind::kOpaque: return value.text;
  }
  return "a value";
}

}  // namespace fuserlab::frontend

namespace fuserlab::frontend {
namespace {

thread_local ValueArena* currentArena = nullptr;

}  // namespace

ValueArena::ValueArena() : previous_(currentArena) { currentArena = this; }

ValueArena::~ValueArena() {
  currentArena = previous_;
  // Emptying a list frees the elements only it held; a list freed that way
  // leaves an expired entry further on, which lock() skips.
  for (const std::weak_ptr<ValueList>& weak : made_) {
    if (std::shared_ptr<ValueList> elements = weak.lock()) {
      ValueList dropped;
      dropped.swap(*elements);
    }
  }
}

void ValueArena::track(const std::shared_ptr<ValueList>& elements) {
  ValueArena* arena = currentArena;
  if (arena == nullptr) return;
  if (arena->made_.size() >= arena->pruneAt_) {
    std::erase_if(arena->made_, [](const std::weak_ptr<ValueList>& w) { return w.expired(); });
    arena->pruneAt_ = std::max<size_t>(1024, 2 * arena->made_.size());
  }
  arena->made_.push_back(elements);
}

}  // namespace fuserlab::frontend
