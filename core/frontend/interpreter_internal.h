// Internal to the interpreter (interpreter.h): the Interpreter class, shared
// by interpreter.cpp (names, attributes, statements), interpreter_calls.cpp
// (functions, methods, the FusionDefinition's calls, module functions) and
// interpreter_fusions.cpp (the fusions a script builds, subclasses, test
// functions, definitions never called, the Script it gives). Not part of
// the frontend's API.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/frontend/interpreter.h"

namespace fuserlab::frontend::interpreter_detail {

// The torch functions that make a tensor the inputs can hold.
inline constexpr std::string_view kTorchConstructors[] = {"torch.randn",
                                                          "torch.rand",
                                                          "torch.randint",
                                                          "torch.ones",
                                                          "torch.zeros",
                                                          "torch.full",
                                                          "torch.arange",
                                                          "torch.testing.make_tensor",
                                                          "torch.device",
                                                          "torch.empty",
                                                          "torch.tensor",
                                                          "torch.empty_strided",
                                                          "torch.as_strided",
                                                          "torch.nn.Parameter",
                                                          "torch.nn.parameter.Parameter"};

// The torch tensor methods the inputs block reads (inputs_block.h).
inline constexpr std::string_view kTorchViewMethods[] = {"as_strided", "cuda", "expand"};

enum class Flow { kNormal, kReturn, kBreak, kContinue };

// The most ops one definition may build (a 100,000-op chain fits).
inline constexpr size_t kMaxDefinedOps = 100'000;

// What a pasted test function gets for nvFuser's test fixtures
// (nvfuser_direct_test, the TestCase's self): exec_nvfuser builds.
inline const std::string kTestFixture = "fuserlab.test_fixture";
inline constexpr std::string_view kFixtureNames[] = {"nvfuser_direct_test", "nvfuser_test", "self"};

// What the script raises (`raise ValueError(...)`, a failed `assert`): a
// UserError that `try` can catch, by its exception's name.
class ScriptException : public UserError {
 public:
  ScriptException(std::string type, std::string text, const SourceLocation& location)
      : UserError("the script raises " + type + (text.empty() ? "" : ": " + text) +
                      " here (FuserLab ran its Python up to this line)",
                  location),
        type_(std::move(type)),
        text_(std::move(text)) {}
  const std::string& type() const { return type_; }
  const std::string& text() const { return text_; }

 private:
  std::string type_;
  std::string text_;
};

// One FusionDefinition the script builds.
struct Builder {
  std::unique_ptr<ir::Fusion> fusion = std::make_unique<ir::Fusion>();
  NameTable attributes;  // `self.x` of a subclass
  const ClassDef* classDef = nullptr;
  std::string name;  // the function or class that built it
  SourceLocation location;
  bool named = false;
  bool closed = false;
  std::optional<Value> inputs;  // what fd.execute / `inputs =` gave
  SourceLocation inputsLocation;
};

class Interpreter : public ExpressionEvaluator {
 public:
  Interpreter(std::string_view source, const std::string& fileName)
      : ExpressionEvaluator(globals_), source_(source), fileName_(fileName) {}
  // A closure kept in the scope it closes over (a nested def, a function
  // returning itself) is a cycle of shared pointers: emptying every scope
  // still alive breaks them.
  ~Interpreter() override {
    for (const std::weak_ptr<Scope>& made : scopesMade_) {
      if (std::shared_ptr<Scope> scope = made.lock()) scope->names.clear();
    }
  }
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  Script run(const Module& module);

 protected:
  // ---- Names ---------------------------------------------------------------

  const Value* lookupLocal(std::string_view name) const override;

  void bindName(const std::string& name, const Value& value,
                const SourceLocation& location) override;

  void assignAttribute(const Value& object, const std::string& name, const Value& value,
                       const SourceLocation& location) override;

  // ---- Attributes ----------------------------------------------------------

  Value attributeOf(const Value& object, const Attribute& attribute, const Expr& expr) override;

  // ---- Calls ---------------------------------------------------------------

  Value callValue(const Value& callee, const EvaluatedCall& call) override;

  Value binaryOnFusionValues(BinaryOpKind op, const Value& lhs, const Value& rhs,
                             const SourceLocation& location) override;

  Value unaryOnFusionValue(UnaryOpKind op, const Value& operand,
                           const SourceLocation& location) override;

  Value makeLambda(const Lambda& lambda, const Expr& expr) override;
  Value indexTorchTensor(const Value& tensor, const Value& index,
                         const SourceLocation& location) override;

 private:
  // ---- Statements ----------------------------------------------------------

  void execModuleBody(const std::vector<StmtPtr>& body);

  Flow execBlock(const std::vector<StmtPtr>& body);

  Flow execStatement(const Stmt& stmt);

  // `fd.execute(inputs)` and its kin: the inputs they name belong to the
  // fusion; arguments the reader cannot compute (a sharded tensor from
  // torch.distributed, a name defined only at run time) leave it without.
  bool isRunOnlyCall(const Expr& expr);

  void runOnlyCall(const Expr& expr);

  // `inputs = ...` at module level is the inputs block: a list whose
  // entries are torch tensors or Python numbers.
  void checkInputsAssignment(const Assign& assign, const Value& value);

  void execAugAssign(const AugAssign& assign);

  // `lhs op rhs` on values already evaluated.
  Value combine(BinaryOpKind op, const Value& lhs, const Value& rhs,
                const SourceLocation& location);

  Flow execFor(const For& loop);

  Flow execWhile(const While& loop);

  void execAssert(const Assert& assertion, const Stmt& stmt);

  void execDef(const FunctionDef& def, const Stmt& stmt);

  void execClassDef(const ClassDef& def, const Stmt& stmt);

  Flow execWith(const With& with, const Stmt& stmt);

  // ---- Functions -------------------------------------------------------------

  Value callFunction(const FunctionObject& function, const EvaluatedCall& call);

  // Python's binding of arguments to parameters: positional in order, the
  // rest to *args; keywords by name, the rest to **kwargs; then defaults.
  void bindParameters(const FunctionObject& function, const EvaluatedCall& call, NameTable& names);

  static size_t positionalCount(const std::vector<Parameter>& params);

  // ---- FusionDefinitions -----------------------------------------------------

  Builder& builder(const Value& fd);

  ir::Fusion& fusionOf(const Value& value, const SourceLocation& location);

  int64_t newBuilder(const SourceLocation& location);

  // The fusion is finished: a with-block ended, or a subclass was read.
  void close(int64_t index, bool built, const SourceLocation& location = SourceLocation{});

  // `inputs = <value>` at module level: the inputs of the fusion built
  // last if it has none yet, else of the next one built.
  void noteInputs(const Value& value, const SourceLocation& location);

  Value callMethod(const Value& receiver, const std::string& name, const EvaluatedCall& call);

  Value callFd(const Value& fd, const std::string& name, const EvaluatedCall& call);

  static const FunctionDef* method(const ClassDef& def, std::string_view name);

  Value callClassMethod(const FunctionDef& def, const Value& self, const EvaluatedCall& call);

  // `Model(args)`: __init__ with the arguments, then definition() and
  // multidevice_schedule() build one fusion.
  int64_t instantiate(const ClassDef& def, const EvaluatedCall& call);

  Value callNamespace(const std::string& path, const EvaluatedCall& call);

  // getattr(object, name[, default]) and hasattr(object, name).
  Value getAttribute(bool has, const EvaluatedCall& call);
  std::optional<Value> architecturePredicate(const std::string& path, const EvaluatedCall& call);

  // functools.partial(f, *args, **kwargs).
  Value makePartial(const EvaluatedCall& call);

  // `nvfuser_direct_test.exec_nvfuser(fusion_func, inputs)`, as nvFuser's
  // tests run a definition: it builds the fusion with those inputs.
  Value execNvfuser(const EvaluatedCall& call);

  const InputSpec& spec(const Value& tensor) const;

  // ---- Definitions never built ---------------------------------------------

  static bool looksLikeDefinition(const FunctionObject& function);

  // A `def f(fd: FusionDefinition)` that no with-block called is read on
  // its own, with its parameters' defaults (as `--fusion NAME` selects it).
  void readUncalledDefinitions();

  // A test function pasted from nvFuser's suite (`def test_x(
  // nvfuser_direct_test, dtype):` with pytest.mark.parametrize marks) runs
  // once, each parameter taking the fixture, its first parametrized value
  // or its default, when the script builds no fusion otherwise.
  Flow execTry(const Try& tryStmt);
  bool handles(const ExceptHandler& handler, const ScriptException& exception);
  void checkFusionSize(const ir::Fusion& fusion, const SourceLocation& location);
  // The inputs a run (fd.execute, exec_nvfuser) passes `fd`'s fusion.
  void runWith(const Value& fd, const Value& inputs, const SourceLocation& location) {
    Builder& b = builder(fd);
    b.inputs = inputs;
    b.inputsLocation = location;
  }
  void checkSameFusion(const ir::Fusion& fusion, const EvaluatedCall& call);
  void runTestFunctions();
  void runTestFunction(const FunctionObject& function);

  // ---- The result ------------------------------------------------------------

  Script collect();

  NameTable globals_;
  std::string_view source_;
  std::string fileName_;
  std::shared_ptr<Scope> frame_;
  Value returnValue_;
  int depth_ = 0;
  std::vector<Builder> builders_;
  std::vector<InputSpec> specs_;
  std::vector<std::shared_ptr<FunctionObject>> moduleFunctions_;
  std::set<const FunctionObject*> calledWithFd_;
  std::map<std::string, const ClassDef*, std::less<>> classes_;
  std::map<std::string, SourceLocation, std::less<>> classLocations_;
  std::set<std::string, std::less<>> instantiatedClasses_;
  std::vector<const ClassDef*> testClasses_;
  std::vector<std::weak_ptr<Scope>> scopesMade_;
  std::vector<ScriptException> handling_;  // what enclosing handlers caught

  void keepTrackOf(const std::shared_ptr<Scope>& scope) {
    // Forget the scopes already gone whenever the list doubles.
    if (scopesMade_.size() >= 1024 && (scopesMade_.size() & (scopesMade_.size() - 1)) == 0) {
      std::erase_if(scopesMade_, [](const std::weak_ptr<Scope>& made) { return made.expired(); });
    }
    scopesMade_.push_back(scope);
  }
  std::vector<int64_t> closedOrder_;
  std::optional<int64_t> executed_;
  std::optional<Value> pendingInputs_;
  SourceLocation pendingInputsLocation_;
  int inlineBlocks_ = 0;
};

}  // namespace fuserlab::frontend::interpreter_detail
