// SegmentedFusion: a fusion cut into segments (groups of exprs), each with
// the scheduler that will run it, and the edges (tensors) between segments.
// It owns the fusion it segments (the passes' output, possibly rewritten by
// privatization), and a standalone Fusion per segment: the segment's exprs
// with its boundary tensors as inputs and outputs, which is what schedulers,
// code generation and the report see.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/ir/cloner.h"
#include "core/ir/fusion.h"
#include "core/scheduler/registry.h"

namespace fuserlab::segmenter {

struct SegmentedGroup {
  //! The group's position in groups(); groups are ordered by their first
  //! expr.
  int id = 0;
  //! Exprs of the complete fusion, in topological order: the tensor exprs,
  //! the scalar exprs of exprsForOutputs() the segment computes, and (under
  //! upcast=forward) the forwarded exprs it reads, which appear in every
  //! group that reads them.
  std::vector<ir::Expr*> exprs;
  //! Boundary values of the complete fusion: read from outside the group
  //! (tensors, and symbolic scalars their binding does not give) / used
  //! outside it or fusion outputs; in the order of segment's inputs and
  //! outputs (see segment_extraction.h). A fusion output that is a fusion
  //! input belongs to no group unless the whole fusion is one segment.
  std::vector<ir::Val*> inputs;
  std::vector<ir::Val*> outputs;
  scheduler::SchedulerChoice choice;
  //! The group as a Fusion of its own and the map from the complete fusion.
  //! Its values have names of their own (T0, T1, ...); the choice's reasons
  //! and properties are already written with the complete fusion's names.
  std::unique_ptr<ir::Fusion> segment;
  ir::CloneMap toSegment;
};

struct SegmentedEdge {
  int from = 0;
  int to = 0;
  ir::Val* val = nullptr;  //!< in the complete fusion
};

class SegmentedFusion {
 public:
  explicit SegmentedFusion(std::unique_ptr<ir::Fusion> complete) : complete_(std::move(complete)) {}

  const ir::Fusion& complete() const { return *complete_; }
  ir::Fusion& complete() { return *complete_; }
  std::vector<SegmentedGroup>& groups() { return groups_; }
  const std::vector<SegmentedGroup>& groups() const { return groups_; }
  std::vector<SegmentedEdge>& edges() { return edges_; }
  const std::vector<SegmentedEdge>& edges() const { return edges_; }

  //! Segments whose scheduler launches a kernel.
  int kernelCount() const;

  //! nvFuser's `segmented_fusion` dump:
  //!   Segmented_Fusion{
  //!   groups:
  //!     inner_persistent{0, 1, 2, 3, 4, 5}
  //!     no_op{6}
  //!   edges:
  //!     e{ reduction{...} -> pointwise{...}(T4_g_float[iS8{i0}, bS9{1}]) }
  //!   }
  //! with expr numbers as positions in complete().exprsForOutputs().
  std::string toString() const;

 private:
  std::unique_ptr<ir::Fusion> complete_;
  std::vector<SegmentedGroup> groups_;
  std::vector<SegmentedEdge> edges_;
};

}  // namespace fuserlab::segmenter
