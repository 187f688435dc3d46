// Fusion: owns every Val, IterDomain, transform and Expr of one fusion
// definition, in creation order, plus its inputs and outputs. Creation order
// is the only order anything is iterated in, so printing, hashing and code
// generation are deterministic (no pointer-keyed iteration).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/error.h"
#include "core/ir/expr.h"
#include "core/ir/iter_domain.h"
#include "core/ir/tensor_view.h"
#include "core/ir/val.h"

namespace fuserlab::ir {

class Fusion;
struct CloneMap;
std::unique_ptr<Fusion> cloneFusion(const Fusion& fusion, CloneMap* map);

//! An output's extra properties: an in-place alias of an input
//! (`fd.add_output(T, alias_input=I)`), in which case the result is written
//! into the input's storage.
struct FusionOutput {
  Val* val = nullptr;
  Val* aliasOf = nullptr;
};

class Fusion {
 public:
  Fusion();
  ~Fusion();
  Fusion(const Fusion&) = delete;
  Fusion& operator=(const Fusion&) = delete;

  // --- creation ------------------------------------------------------------
  //! A symbolic scalar (bound at run time) of the given dtype.
  Scalar* newScalar(DataType dtype);
  Scalar* newConstant(ScalarValue value, DataType dtype);
  Scalar* constInt(int64_t value) { return newConstant(value, DataType::Int); }
  Scalar* constDouble(double value) { return newConstant(value, DataType::Double); }
  Scalar* constBool(bool value) { return newConstant(value, DataType::Bool); }
  //! A scalar Binary expr with constant folding: add/sub/mul/div/ceilDiv of
  //! two constant ints gives a constant; x*1, x+0 fold to x.
  Scalar* scalarBinary(BinaryOpType op, Scalar* a, Scalar* b);

  IterDomain* newIterDomain(Scalar* extent, IterType type, Scalar* expandedExtent = nullptr);
  //! A fresh IterDomain with the same extents, iter type and parallel type
  //! (or the given iter type).
  IterDomain* cloneIterDomain(const IterDomain* id);
  IterDomain* cloneIterDomain(const IterDomain* id, IterType type);

  //! A new tensor with the given logical domain (contiguous, no allocation).
  TensorView* newTensorView(std::vector<IterDomain*> logical, DataType dtype);
  TensorView* newTensorView(TensorDomain domain, DataType dtype);

  Expr* newExpr(ExprType type, std::vector<Val*> inputs, std::vector<Val*> outputs,
                ExprAttrs attrs = {});

  //! Splits `in`; returns {outer, inner}.
  std::pair<IterDomain*, IterDomain*> split(IterDomain* in, Scalar* factor, bool innerSplit = true);
  IterDomain* merge(IterDomain* outer, IterDomain* inner);

  // --- where the script made each value -----------------------------------
  //! Records the script call that made values (the reader stamps the values
  //! each fd call makes), for errors found after reading: an extent that
  //! divides by zero at the given sizes points at the call that made it.
  //! Returns the index to give those values; clones share the table.
  int32_t addScriptLocation(SourceLocation location);
  //! The call that made `val`, if the reader recorded one.
  const SourceLocation* scriptLocationOf(const Val* val) const;

  // --- inputs and outputs --------------------------------------------------
  void addInput(Val* val);
  void addOutput(Val* val, Val* aliasOf = nullptr);
  const std::vector<Val*>& inputs() const { return inputs_; }
  std::vector<Val*> outputVals() const;
  const std::vector<FusionOutput>& outputs() const { return outputs_; }
  bool isInput(const Val* val) const;
  bool isOutput(const Val* val) const;

  // --- mutation (passes and the segmenter rewrite fusions in place) --------
  //! Makes `expr` read `newVal` wherever it read `oldVal`.
  void replaceExprInput(Expr* expr, Val* oldVal, Val* newVal);
  //! Redirects every use of `oldVal` (Expr inputs and fusion outputs) to
  //! `newVal`.
  void replaceAllUsesWith(Val* oldVal, Val* newVal);
  //! Removes `expr`; its outputs lose their definition (and should be unused
  //! or redefined). Expr ids are renumbered to stay positions.
  void removeExpr(Expr* expr);
  //! Replaces the Val of fusion output `index` (e.g. after inserting a copy).
  void replaceOutput(size_t index, Val* newVal);

  // --- traversal -----------------------------------------------------------
  const std::vector<std::unique_ptr<Val>>& vals() const { return vals_; }
  const std::vector<std::unique_ptr<Expr>>& exprs() const { return exprs_; }
  const std::vector<std::unique_ptr<IterDomain>>& iterDomains() const { return iterDomains_; }
  const std::vector<std::unique_ptr<IterDomainTransform>>& transforms() const {
    return transforms_;
  }
  //! Multi-device localization (core/multidevice/local_fusion.h): gives
  //! `id` a new extent, and makes `tv` an ordinary single-device tensor
  //! (loop domain = logical, no allocation domain, contiguous, no mesh).
  void setExtent(IterDomain* id, Scalar* extent);
  void dropDeviceSharding(TensorView* tv);

  //! Exprs that the outputs depend on, producers before consumers; among
  //! ready Exprs the earliest created comes first, so a fusion built in
  //! order prints in creation order, and rewritten ones stay topological.
  std::vector<Expr*> exprsForOutputs() const;
  std::vector<TensorView*> tensorInputs() const;

  //! nvFuser's `fusion_ir` dump: inputs, outputs, one line per Expr.
  std::string toString() const;

 private:
  // cloneFusion recreates every statement in the original's creation order,
  // so names and ids match; it needs to build what split/merge and
  // newTensorView build, without their folding and defaults.
  friend std::unique_ptr<Fusion> cloneFusion(const Fusion& fusion, CloneMap* map);
  //! A TensorView whose domain is filled in later by setDomain: its loop and
  //! allocation IterDomains may be created after it.
  TensorView* newTensorViewWithoutDomain(DataType dtype);
  //! Sets a domain verbatim (no default loop or contiguity).
  static void setDomain(TensorView* tv, TensorDomain domain);
  //! Records a Split/Merge between existing IterDomains: the transform's
  //! inputs' uses and its outputs' definition.
  IterDomainTransform* addTransform(TransformKind kind, std::vector<IterDomain*> inputs,
                                    std::vector<IterDomain*> outputs, Scalar* factor,
                                    bool innerSplit);

  int64_t nextNameIndex(ValKind kind);

  std::vector<std::unique_ptr<Val>> vals_;
  std::vector<std::unique_ptr<Expr>> exprs_;
  std::vector<std::unique_ptr<IterDomain>> iterDomains_;
  std::vector<std::unique_ptr<IterDomainTransform>> transforms_;
  std::vector<Val*> inputs_;
  std::vector<FusionOutput> outputs_;
  std::shared_ptr<std::vector<SourceLocation>> scriptLocations_;
  int64_t tensorCount_ = 0;
  int64_t scalarCount_ = 0;
};

}  // namespace fuserlab::ir
