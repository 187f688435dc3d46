// FusionBuilder: a Fusion built call by call from outside a script, as the
// Python module `fuserlab` builds one (`fd.define_tensor(...)`,
// `fd.ops.add(a, b)`, `fd.add_output(t)`). Every call goes through the same
// fd methods and fd.ops table the script reader uses (fd_methods.h,
// fd_ops.h), with the same names, keywords, dialects and error messages, so
// there is one op table. Arguments and results are plain values; fusion
// values cross as handles (their index in the builder).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/data_type.h"
#include "core/ir/fusion.h"

namespace fuserlab::frontend {

//! An argument or result: None, a bool, int, float or string, a DataType, a
//! value of the fusion being built (by handle), or a list or tuple of these.
struct BuilderValue {
  enum class Kind : uint8_t { None, Bool, Int, Float, String, DataType, Val, List, Tuple };
  Kind kind = Kind::None;
  bool boolValue = false;
  int64_t intValue = 0;  //!< Int; Val: the handle
  double floatValue = 0;
  std::string text;
  ir::DataType dtype = ir::DataType::Null;
  std::vector<BuilderValue> items;

  static BuilderValue none() { return {}; }
  static BuilderValue boolean(bool v) {
    BuilderValue b;
    b.kind = Kind::Bool;
    b.boolValue = v;
    return b;
  }
  static BuilderValue integer(int64_t v) {
    BuilderValue b;
    b.kind = Kind::Int;
    b.intValue = v;
    return b;
  }
  static BuilderValue floating(double v) {
    BuilderValue b;
    b.kind = Kind::Float;
    b.floatValue = v;
    return b;
  }
  static BuilderValue string(std::string v) {
    BuilderValue b;
    b.kind = Kind::String;
    b.text = std::move(v);
    return b;
  }
  static BuilderValue dataType(ir::DataType v) {
    BuilderValue b;
    b.kind = Kind::DataType;
    b.dtype = v;
    return b;
  }
  static BuilderValue val(int64_t handle) {
    BuilderValue b;
    b.kind = Kind::Val;
    b.intValue = handle;
    return b;
  }
  static BuilderValue sequence(std::vector<BuilderValue> items, bool tuple) {
    BuilderValue b;
    b.kind = tuple ? Kind::Tuple : Kind::List;
    b.items = std::move(items);
    return b;
  }
};

using BuilderKeywords = std::vector<std::pair<std::string, BuilderValue>>;

class FusionBuilder {
 public:
  FusionBuilder();
  ~FusionBuilder();
  FusionBuilder(const FusionBuilder&) = delete;
  FusionBuilder& operator=(const FusionBuilder&) = delete;

  //! `fd.<name>(...)`: define_tensor, define_scalar, define_vector,
  //! add_output (the nvfuser_direct and the older nvfuser spellings).
  //! `where` ("repro.py:12") places errors. A UserError for anything else.
  BuilderValue callFd(const std::string& name, const std::vector<BuilderValue>& positional,
                      const BuilderKeywords& keywords, const std::string& where = {});
  //! `fd.ops.<name>(...)`; unknown ops are UserErrors naming the op.
  BuilderValue callOp(const std::string& name, const std::vector<BuilderValue>& positional,
                      const BuilderKeywords& keywords, const std::string& where = {});
  //! `T.<name>(...)` on a tensor: size, shape, ...
  BuilderValue callTensorMethod(int64_t handle, const std::string& name,
                                const std::vector<BuilderValue>& positional,
                                const std::string& where = {});
  //! `lhs <op> rhs` for op in + - * / // % ** < <= > >= & | ^; either side
  //! may be a Python number.
  BuilderValue binaryOperator(const std::string& op, const BuilderValue& lhs,
                              const BuilderValue& rhs, const std::string& where = {});
  //! `-x`, `~x`.
  BuilderValue unaryOperator(const std::string& op, const BuilderValue& operand,
                             const std::string& where = {});

  //! What handle `handle` is.
  const ir::Val* val(int64_t handle) const;
  ir::Fusion& fusion() { return *fusion_; }
  const ir::Fusion& fusion() const { return *fusion_; }

 private:
  std::unique_ptr<ir::Fusion> fusion_;
  std::vector<ir::Val*> vals_;  //!< by handle
};

}  // namespace fuserlab::frontend
