// readScript: walks a parsed repro script's top level. Imports bind module
// names; each `def` is read into its own Fusion (definition_reader.h); the
// `with FusionDefinition() as fd:` block says which definition the script
// builds (or is one, when it holds the fd calls itself); `inputs = [...]` is
// read into InputSpecs (inputs_block.h); `fd.execute(...)`, `print(...)` and
// torch housekeeping calls are ignored. Anything else is a UserError at the
// statement.
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include "core/frontend/definition_reader.h"
#include "core/frontend/inputs_block.h"
#include "core/frontend/lexer.h"
#include "core/frontend/parser.h"
#include "core/frontend/script.h"

namespace fuserlab::frontend {
namespace {

using Kind = Value::Kind;

constexpr std::string_view kTopLevelForms =
    "a script holds imports, 'def f(fd: FusionDefinition)' definitions, a "
    "'with FusionDefinition() as fd:' block, 'inputs = [...]' and "
    "'fd.execute(inputs)'";

class ModuleReader {
 public:
  ModuleReader(std::string_view source, const std::string& fileName)
      : source_(source), fileName_(fileName) {}

  Script read() {
    Module module = parseScript(source_, fileName_);
    script_.fileName = fileName_;
    readStatements(module.body);
    // A subclass the script never instantiates is read with its defaults.
    for (auto& [name, info] : classes_) {
      if (!info.instantiated) instantiate(info, nullptr, info.location);
    }
    if (script_.definitions.empty()) {
      SourceText text(source_, fileName_);
      throw UserError(
          "no fusion definition found: expected 'def f(fd : "
          "FusionDefinition) -> None:' or a 'with FusionDefinition() as fd:' "
          "block",
          text.locate(1, 1));
    }
    script_.executed = executed_.value_or(script_.definitions.size() - 1);
    return std::move(script_);
  }

 private:
  // A FusionDefinition subclass, read when the script instantiates it.
  struct ClassInfo {
    const ClassDef* def = nullptr;
    SourceLocation location;
    bool instantiated = false;
  };

  // Evaluates __init__'s expressions with its parameters in scope.
  class ScopedEvaluator : public ExpressionEvaluator {
   public:
    ScopedEvaluator(const NameTable& globals, const NameTable& locals)
        : ExpressionEvaluator(globals), locals_(locals) {}

   protected:
    const Value* lookupLocal(std::string_view name) const override {
      auto it = locals_.find(name);
      return it == locals_.end() ? nullptr : &it->second;
    }

   private:
    const NameTable& locals_;
  };

  static const FunctionDef* method(const ClassDef& def, std::string_view name) {
    for (const StmtPtr& stmt : def.body) {
      const auto* function = stmt->as<FunctionDef>();
      if (function != nullptr && function->name == name) return function;
    }
    return nullptr;
  }

  void readClassDef(const ClassDef& def, const Stmt& stmt) {
    bool isFusionDefinition = false;
    for (const ExprPtr& base : def.bases) {
      Value value = ExpressionEvaluator(globals_).evaluate(*base);
      isFusionDefinition |= value.is(Kind::kNamespace) &&
                            value.text.ends_with("FusionDefinition");
    }
    if (!isFusionDefinition) {
      throw UserError("class " + def.name +
                          ": only subclasses of FusionDefinition are read",
                      stmt.location);
    }
    for (const StmtPtr& member : def.body) {
      const auto* statement = member->as<ExprStatement>();
      const bool docstring =
          statement != nullptr && statement->value->is<String>();
      if (!member->is<FunctionDef>() && !member->is<Pass>() && !docstring) {
        throw UserError("class " + def.name + ": a FusionDefinition subclass "
                            "holds methods only (definition, "
                            "multidevice_schedule, __init__)",
                        member->location);
      }
    }
    const FunctionDef* definition = method(def, "definition");
    if (definition == nullptr || definition->params.size() != 1) {
      throw UserError("class " + def.name +
                          " needs a method 'def definition(self)'",
                      stmt.location);
    }
    classes_[def.name] = ClassInfo{&def, stmt.location, false};
    globals_[def.name] = Value::classNamed(def.name);
  }

  // `fd = Model(args)`: runs __init__'s `self.x = ...` with the arguments,
  // then reads definition() and multidevice_schedule() into one Fusion.
  size_t instantiate(ClassInfo& info, const Call* call,
                     const SourceLocation& location) {
    const ClassDef& def = *info.def;
    info.instantiated = true;
    NameTable params;
    NameTable attributes;
    if (const FunctionDef* init = method(def, "__init__")) {
      ExpressionEvaluator outer(globals_);
      const size_t given = call ? call->args.size() : 0;
      if (given + 1 > init->params.size()) {
        throw UserError(def.name + "() takes " +
                            std::to_string(init->params.size() - 1) +
                            " arguments, " + std::to_string(given) +
                            " given",
                        location);
      }
      for (size_t i = 1; i < init->params.size(); ++i) {
        const Parameter& param = init->params[i];
        const Expr* arg = i - 1 < given ? call->args[i - 1].get() : nullptr;
        if (call != nullptr) {
          for (const Keyword& keyword : call->keywords) {
            if (keyword.name == param.name) arg = keyword.value.get();
          }
        }
        if (arg == nullptr) arg = param.defaultValue.get();
        if (arg == nullptr) {
          throw UserError(def.name + "(): parameter '" + param.name +
                              "' of __init__ has no argument and no default",
                          location);
        }
        params[param.name] = outer.evaluate(*arg);
      }
      const std::string& self = init->params.at(0).name;
      ScopedEvaluator evaluator(globals_, params);
      for (const StmtPtr& stmt : init->body) {
        if (isSuperInit(*stmt) || stmt->is<Pass>()) continue;
        const auto* assign = stmt->as<Assign>();
        const auto* target =
            assign ? assign->target->as<Attribute>() : nullptr;
        const auto* object =
            target ? target->object->as<Name>() : nullptr;
        if (object == nullptr || object->id != self) {
          throw UserError("__init__ of " + def.name +
                              ": only 'super().__init__(...)' and "
                              "'self.x = value' are read",
                          stmt->location);
        }
        attributes[target->name] = evaluator.evaluate(*assign->value);
      }
    }
    const FunctionDef* definition = method(def, "definition");
    std::vector<const std::vector<StmtPtr>*> bodies = {&definition->body};
    if (const FunctionDef* schedule = method(def, "multidevice_schedule")) {
      bodies.push_back(&schedule->body);
    }
    auto fusion = readClassDefinition(bodies, definition->params.at(0).name,
                                      globals_, std::move(attributes));
    return addDefinition(def.name, info.location, std::move(fusion));
  }

  static bool isSuperInit(const Stmt& stmt) {
    const auto* statement = stmt.as<ExprStatement>();
    const auto* call = statement ? statement->value->as<Call>() : nullptr;
    const auto* method = call ? call->callee->as<Attribute>() : nullptr;
    if (method == nullptr || method->name != "__init__") return false;
    const auto* inner = method->object->as<Call>();
    const auto* callee = inner ? inner->callee->as<Name>() : nullptr;
    return callee != nullptr && callee->id == "super";
  }
  void readStatements(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& stmt : body) readStatement(*stmt);
  }

  void readStatement(const Stmt& stmt) {
    if (stmt.is<Import>() || stmt.is<ImportFrom>()) {
      bindImport(stmt, globals_);
    } else if (const auto* def = stmt.as<FunctionDef>()) {
      readFunctionDef(*def, stmt);
    } else if (const auto* with = stmt.as<With>()) {
      readWith(*with, stmt);
    } else if (const auto* assign = stmt.as<Assign>()) {
      readAssign(*assign);
    } else if (const auto* statement = stmt.as<ExprStatement>()) {
      readExpressionStatement(*statement, stmt);
    } else if (const auto* branch = stmt.as<If>()) {
      readIf(*branch, stmt);
    } else if (const auto* classDef = stmt.as<ClassDef>()) {
      readClassDef(*classDef, stmt);
    } else if (!stmt.is<Pass>()) {
      throw UserError("'" + std::string(kindName(stmt)) +
                          "' is not supported at the top level; " +
                          std::string(kTopLevelForms),
                      stmt.location);
    }
  }

  void readFunctionDef(const FunctionDef& def, const Stmt& stmt) {
    if (def.params.empty()) {
      throw UserError("the fusion definition " + def.name +
                          " takes no parameters; expected def " + def.name +
                          "(fd : FusionDefinition) -> None:",
                      stmt.location);
    }
    NameTable locals;
    ExpressionEvaluator evaluator(globals_);
    for (size_t i = 1; i < def.params.size(); ++i) {
      const Parameter& param = def.params[i];
      if (!param.defaultValue) {
        throw UserError("parameter '" + param.name + "' of " + def.name +
                            " has no default value; a fusion definition "
                            "takes the FusionDefinition, and other "
                            "parameters need defaults",
                        param.location);
      }
      locals[param.name] = evaluator.evaluate(*param.defaultValue);
    }
    for (const FusionDefinitionScript& existing : script_.definitions) {
      if (existing.functionName == def.name) {
        throw UserError("the fusion definition " + def.name +
                            " is defined twice (first at line " +
                            std::to_string(existing.location.line) + ")",
                        stmt.location);
      }
    }
    auto fusion = readDefinition(def.body, def.params[0].name, globals_,
                                 std::move(locals));
    globals_[def.name] = Value::definition(
        addDefinition(def.name, stmt.location, std::move(fusion)));
  }

  size_t addDefinition(std::string name, SourceLocation location,
                       std::unique_ptr<ir::Fusion> fusion) {
    script_.definitions.push_back(
        {std::move(name), std::move(location), std::move(fusion)});
    return script_.definitions.size() - 1;
  }

  void readWith(const With& with, const Stmt& stmt) {
    const auto* context = with.context->as<Call>();
    bool isFusionDefinition = false;
    if (context != nullptr) {
      Value callee = ExpressionEvaluator(globals_).evaluate(*context->callee);
      isFusionDefinition = callee.is(Kind::kNamespace) &&
                           callee.text.ends_with("FusionDefinition");
    }
    if (!isFusionDefinition) {
      throw UserError("expected 'with FusionDefinition() as fd:'; other "
                      "context managers are not supported",
                      with.context->location);
    }
    if (with.target.empty()) {
      throw UserError("expected 'with FusionDefinition() as fd:': the block "
                      "needs a name for the FusionDefinition",
                      stmt.location);
    }
    if (std::optional<size_t> called = calledDefinition(with)) {
      executed_ = *called;
    } else {
      ++inlineBlocks_;
      std::string name = "fusion";
      if (inlineBlocks_ > 1) name += "_" + std::to_string(inlineBlocks_);
      auto fusion = readDefinition(with.body, with.target, globals_, {});
      executed_ = addDefinition(std::move(name), stmt.location,
                                std::move(fusion));
    }
    globals_[with.target] = Value::fd();
  }

  // The definition a with-block calls when its body is just `f(fd)`.
  std::optional<size_t> calledDefinition(const With& with) {
    const Call* call = nullptr;
    for (const StmtPtr& stmt : with.body) {
      if (stmt->is<Pass>()) continue;
      const auto* statement = stmt->as<ExprStatement>();
      if (statement != nullptr && statement->value->is<String>()) continue;
      if (call != nullptr || statement == nullptr) return std::nullopt;
      call = statement->value->as<Call>();
      if (call == nullptr) return std::nullopt;
    }
    if (call == nullptr) return std::nullopt;
    const auto* callee = call->callee->as<Name>();
    if (callee == nullptr) return std::nullopt;
    auto it = globals_.find(callee->id);
    if (it == globals_.end() || !it->second.is(Kind::kDefinition)) {
      return std::nullopt;
    }
    const bool passesFd = call->args.size() == 1 && call->keywords.empty() &&
                          call->args[0]->is<Name>() &&
                          call->args[0]->as<Name>()->id == with.target;
    if (!passesFd) {
      throw UserError("expected " + callee->id + "(" + with.target +
                          "): a fusion definition is called with the "
                          "with-block's FusionDefinition only",
                      call->callee->location);
    }
    return static_cast<size_t>(it->second.intValue);
  }

  // `<fd>.execute(...)` (or validate) on the FusionDefinition of a block.
  bool isExecuteCall(const Expr& expr) const {
    const auto* call = expr.as<Call>();
    if (call == nullptr) return false;
    const auto* method = call->callee->as<Attribute>();
    if (method == nullptr ||
        (method->name != "execute" && method->name != "validate")) {
      return false;
    }
    const auto* object = method->object->as<Name>();
    if (object == nullptr) return false;
    auto it = globals_.find(object->id);
    return it != globals_.end() && it->second.is(Kind::kFd);
  }

  void readAssign(const Assign& assign) {
    const auto* name = assign.target->as<Name>();
    if (name != nullptr && name->id == "inputs") {
      script_.inputs = readInputsBlock(*assign.value, globals_);
      // The block belongs to the fusion the latest with-block built (or the
      // last definition so far when there is no with-block yet).
      if (!script_.definitions.empty()) {
        const size_t owner =
            executed_.value_or(script_.definitions.size() - 1);
        auto& byDefinition = script_.inputsByDefinition;
        std::erase_if(byDefinition,
                      [&](const auto& entry) { return entry.first == owner; });
        byDefinition.emplace_back(owner, *script_.inputs);
      }
      return;
    }
    if (isExecuteCall(*assign.value)) return;  // outputs = fd.execute(inputs)
    if (const auto* attribute = assign.target->as<Attribute>()) {
      throw UserError("attribute assignments are read inside a "
                          "FusionDefinition subclass only",
                      attribute->object->location);
    }
    if (const auto* call = assign.value->as<Call>()) {
      if (const auto* callee = call->callee->as<Name>()) {
        auto it = classes_.find(callee->id);
        const auto* target = assign.target->as<Name>();
        if (it != classes_.end() && target != nullptr) {
          executed_ = instantiate(it->second, call, assign.value->location);
          globals_[target->id] = Value::fd();
          return;
        }
      }
    }
    Value value = ExpressionEvaluator(globals_).evaluate(*assign.value);
    assignTargets(*assign.target, value,
                  [&](const std::string& target, const Value& v) {
                    globals_[target] = v;
                  });
  }

  void readExpressionStatement(const ExprStatement& statement,
                               const Stmt& stmt) {
    const Expr& value = *statement.value;
    if (value.is<String>() || isExecuteCall(value)) return;
    if (const auto* call = value.as<Call>()) {
      const std::string callee = dottedName(*call->callee);
      // Output and housekeeping calls do not change what the script defines.
      if ((callee == "print" && !globals_.contains("print")) ||
          callee.starts_with("torch.")) {
        return;
      }
    }
    throw UserError("this top-level " + std::string(kindName(value)) +
                        " is not supported; " + std::string(kTopLevelForms),
                    stmt.location);
  }

  static bool isMainCheck(const Expr& condition) {
    const auto* compare = condition.as<BinaryOp>();
    if (compare == nullptr || compare->op != BinaryOpKind::kEq) return false;
    auto isName = [](const Expr& e) {
      return e.is<Name>() && e.as<Name>()->id == "__name__";
    };
    auto isMain = [](const Expr& e) {
      return e.is<String>() && e.as<String>()->value == "__main__";
    };
    return (isName(*compare->lhs) && isMain(*compare->rhs)) ||
           (isMain(*compare->lhs) && isName(*compare->rhs));
  }

  void readIf(const If& branch, const Stmt& stmt) {
    if (!isMainCheck(*branch.condition)) {
      throw UserError("only 'if __name__ == \"__main__\":' is supported at "
                      "the top level",
                      stmt.location);
    }
    readStatements(branch.body);
  }

  std::string_view source_;
  std::string fileName_;
  Script script_;
  NameTable globals_;
  std::optional<size_t> executed_;
  int inlineBlocks_ = 0;
  std::map<std::string, ClassInfo, std::less<>> classes_;
};

}  // namespace

Script readScript(std::string_view source, const std::string& fileName) {
  return ModuleReader(source, fileName).read();
}

Script readScriptFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw UserError("cannot read the script '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UserError("cannot open the script '" + path +
                    "': no such file or not readable");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UserError("cannot read the script '" + path + "'");
  return readScript(text.str(), path);
}

}  // namespace fuserlab::frontend
