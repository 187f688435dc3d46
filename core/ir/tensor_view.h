// TensorView: a tensor value. Its TensorDomain holds the axes in up to four
// views, as in nvFuser:
//   root        - only for reshape outputs: the axes before the reshape;
//   logical     - the tensor's shape as the user sees it (reduction outputs
//                 keep their reduced axes here, marked Reduction);
//   allocation  - how the tensor is laid out in memory: a permutation of the
//                 logical axes (stride order) or Split/Merge/DID-parallel
//                 axes derived from them (seed 002); empty means "logical";
//   loop        - the axes a schedule iterates over; logical until scheduled.
// Contiguity has one entry per allocation axis (nullopt for broadcast and
// reduction axes), as nvFuser's define_tensor takes it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/ir/device_mesh.h"
#include "core/ir/val.h"

namespace fuserlab::ir {

class IterDomain;

struct TensorDomain {
  std::vector<IterDomain*> root;
  std::vector<IterDomain*> logical;
  std::vector<IterDomain*> allocation;
  std::vector<IterDomain*> loop;
  std::vector<std::optional<bool>> contiguity;

  const std::vector<IterDomain*>& maybeRoot() const { return root.empty() ? logical : root; }
  const std::vector<IterDomain*>& maybeAllocation() const {
    return allocation.empty() ? logical : allocation;
  }
  bool hasAllocation() const { return !allocation.empty(); }
  bool hasRoot() const { return !root.empty(); }
};

//! Drops Reduction axes: the shape of the tensor a consumer reads.
std::vector<IterDomain*> noReductions(const std::vector<IterDomain*>& ids);

class TensorView : public Val {
 public:
  static constexpr ValKind kKind = ValKind::TensorView;

  const TensorDomain& domain() const { return domain_; }
  const std::vector<IterDomain*>& logical() const { return domain_.logical; }
  //! Logical axes without reduction axes; its size is the tensor's rank.
  //! Kept with the domain (the logical domain does not change once set), so
  //! asking is free: the schedulers ask for it thousands of times a compile.
  const std::vector<IterDomain*>& logicalNoReductions() const {
    return hasReductionAxes_ ? logicalNoReductions_ : domain_.logical;
  }
  int64_t rank() const { return static_cast<int64_t>(logicalNoReductions().size()); }
  const std::vector<IterDomain*>& maybeAllocation() const { return domain_.maybeAllocation(); }
  const std::vector<std::optional<bool>>& contiguity() const { return domain_.contiguity; }

  //! Sets the allocation domain (IterDomains reachable from the logical
  //! domain through Split/Merge, or a permutation of it) and its contiguity.
  //! An empty contiguity means "contiguous" for every non-broadcast axis.
  void setAllocation(std::vector<IterDomain*> allocation,
                     std::vector<std::optional<bool>> contiguity = {});
  //! Allocation as a permutation of logical given nvFuser's stride_order:
  //! logical axis i has the stride_order[i]-th smallest stride. Contiguity
  //! flags move with their axes; set a contiguity given in allocation order
  //! (as define_tensor's) after this.
  void setStrideOrder(const std::vector<int64_t>& strideOrder);
  //! The stride order of a permuted allocation domain (empty if allocation is
  //! unset or not a permutation of the logical axes).
  std::vector<int64_t> strideOrder() const;
  void setContiguity(std::vector<std::optional<bool>> contiguity);

  //! Loop-domain scheduling primitives; they also serve to build allocation
  //! domains (seed 002's split/merge, and DID sharding).
  void split(int64_t axis, Scalar* factor, bool innerSplit = true);
  void merge(int64_t axis);  //!< merges loop axes `axis` and `axis + 1`
  void reorderLoop(const std::vector<int64_t>& newToOld);
  const std::vector<IterDomain*>& loop() const { return domain_.loop; }
  //! Makes the current loop domain the allocation domain (nvFuser's
  //! setAllocationDomain(getLoopDomain())), contiguous.
  void setAllocationAsLoop();

  //! The devices the tensor lives on (multi-GPU); empty for a single-device
  //! fusion. Its DID-parallel loop axes say how it is sharded over them.
  const DeviceMesh& deviceMesh() const { return mesh_; }
  bool hasDeviceMesh() const { return !mesh_.empty(); }
  void setDeviceMesh(DeviceMesh mesh) { mesh_ = std::move(mesh); }

  //! True for `define_tensor(..., is_cpu=True)` zero-dim scalar tensors.
  bool isCpuScalar() const { return isCpu_; }
  void setCpuScalar(bool cpu) { isCpu_ = cpu; }

  std::string name() const override;
  //! "T3_g_float[iS6{i0}, rS7{i2}]" (g for fusion inputs/outputs, l otherwise).
  std::string toString() const;

 private:
  friend class Fusion;
  TensorView(Fusion* fusion, DataType dtype, TensorDomain domain, int64_t id, int64_t nameIndex)
      : Val(fusion, ValKind::TensorView, dtype, id, nameIndex), domain_(std::move(domain)) {
    keepLogicalNoReductions();
  }
  //! Fills logicalNoReductions_ from domain_.logical; called whenever the
  //! domain is set.
  void keepLogicalNoReductions();

  TensorDomain domain_;
  //! domain_.logical without its reduction axes, kept only when it has some
  //! (otherwise logicalNoReductions() is domain_.logical itself).
  std::vector<IterDomain*> logicalNoReductions_;
  bool hasReductionAxes_ = false;
  DeviceMesh mesh_;
  bool isCpu_ = false;
};

}  // namespace fuserlab::ir
