// IterDomain: one axis of a tensor, with an extent (a Scalar, possibly
// symbolic), an iteration type and a parallel type. IterDomains are related by
// Split and Merge transforms; a TensorView's root, logical, allocation and loop
// domains are lists of IterDomains connected through those transforms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/node_pool.h"

namespace fuserlab::ir {

class Fusion;
class Scalar;
class IterDomainTransform;

enum class IterType : uint8_t {
  Iteration,  //!< an ordinary axis
  Reduction,  //!< reduced away by the tensor's definition
  Broadcast,  //!< size-1 axis (possibly expanded to a larger extent)
};

enum class ParallelType : uint8_t {
  Serial,
  DIDx,  //!< sharded over the device mesh (multi-GPU)
  DIDy,
  DIDz,
  BIDx,
  BIDy,
  BIDz,
  TIDx,
  TIDy,
  TIDz,
  Vectorize,
  Unroll,
};

std::string_view toString(IterType type);
std::string_view toString(ParallelType type);
bool isDeviceParallel(ParallelType type);
//! The parallel type a script names: "DIDx", "mesh_x" (nvFuser's Python name
//! for DIDx), "mesh_y", "BIDx", "TIDx", "Serial", ...; nullopt if unknown.
std::optional<ParallelType> parallelTypeFromName(std::string_view name);

class IterDomain {
 public:
  FL_POOLED_NODE
  IterDomain(const IterDomain&) = delete;
  IterDomain& operator=(const IterDomain&) = delete;

  int64_t id() const { return id_; }
  Fusion* fusion() const { return fusion_; }
  //! The extent of the axis; 1 for a broadcast axis.
  Scalar* extent() const { return extent_; }
  //! For an expanded broadcast axis, the extent it is expanded to; else null.
  Scalar* expandedExtent() const { return expandedExtent_; }
  bool hasExpandedExtent() const { return expandedExtent_ != nullptr; }
  //! The extent a consumer iterates over: expanded extent if any, else extent.
  Scalar* extentForIteration() const { return expandedExtent_ ? expandedExtent_ : extent_; }

  IterType iterType() const { return iterType_; }
  bool isReduction() const { return iterType_ == IterType::Reduction; }
  bool isBroadcast() const { return iterType_ == IterType::Broadcast; }
  bool isIteration() const { return iterType_ == IterType::Iteration; }

  ParallelType parallelType() const { return parallelType_; }
  bool isDeviceDim() const { return isDeviceParallel(parallelType_); }
  void parallelize(ParallelType type) { parallelType_ = type; }

  //! The Split or Merge that produced this IterDomain, if any.
  IterDomainTransform* definition() const { return definition_; }
  const std::vector<IterDomainTransform*>& uses() const { return uses_; }

  //! nvFuser-style: "iS3{i0}", "rS5{i2}", "bS7{1 ex i1}", "iDIDx2{4}".
  std::string toString() const;

 private:
  friend class Fusion;
  IterDomain(Fusion* fusion, int64_t id, Scalar* extent, IterType type, Scalar* expandedExtent)
      : fusion_(fusion),
        id_(id),
        extent_(extent),
        expandedExtent_(expandedExtent),
        iterType_(type) {}

  Fusion* fusion_;
  int64_t id_;
  Scalar* extent_;
  Scalar* expandedExtent_;
  IterType iterType_;
  ParallelType parallelType_ = ParallelType::Serial;
  IterDomainTransform* definition_ = nullptr;
  std::vector<IterDomainTransform*> uses_;
};

enum class TransformKind : uint8_t { Split, Merge };

//! A Split (in -> outer, inner) or Merge (outer, inner -> out).
//! Split: with `innerSplit` the inner output has extent `factor` and the outer
//! ceilDiv(in, factor); otherwise the outer output has extent `factor`.
class IterDomainTransform {
 public:
  FL_POOLED_NODE
  TransformKind kind() const { return kind_; }
  const std::vector<IterDomain*>& inputs() const { return inputs_; }
  const std::vector<IterDomain*>& outputs() const { return outputs_; }
  Scalar* factor() const { return factor_; }       //!< Split only
  bool innerSplit() const { return innerSplit_; }  //!< Split only

  //! "Split: iS0{i0} by factor 2 -> iS1{..}, iS2{2}" and the like.
  std::string toString() const;

 private:
  friend class Fusion;
  IterDomainTransform(TransformKind kind, std::vector<IterDomain*> inputs,
                      std::vector<IterDomain*> outputs, Scalar* factor, bool innerSplit)
      : kind_(kind),
        inputs_(std::move(inputs)),
        outputs_(std::move(outputs)),
        factor_(factor),
        innerSplit_(innerSplit) {}

  TransformKind kind_;
  std::vector<IterDomain*> inputs_;
  std::vector<IterDomain*> outputs_;
  Scalar* factor_;
  bool innerSplit_;
};

}  // namespace fuserlab::ir
