// Multi-device runs: a multi-device fusion compiled once, then run by each
// rank on its shards. Rank k drives device k of the mesh: it binds its shard
// of every sharded input (through the input's allocation domain, seed 002),
// walks the segments in order, runs each compute segment's local fusion
// (core/multidevice/local_fusion.h) on a SegmentBackend (the CPU reference,
// or a GPU) and each communication segment through a Communicator, and ends
// with its local outputs. gather() puts the ranks' outputs back together
// (sharded outputs concatenated along their sharded axis), which is what
// `fuserlab-cli run --ranks N --check` compares with the unsharded CPU
// reference.
//
// Scope: every tensor's mesh is the N ranks (devices 0..N-1) or a single
// device (a one-device tensor is computed by every rank alike, so a
// broadcast or send/recv from it reads the root's copy). Between segments
// tensors live in host memory; a GPU backend copies in and out per segment.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/compiler/compile_options.h"
#include "core/compiler/fusion_compiler.h"
#include "core/ir/fusion.h"
#include "core/multidevice/communicator.h"
#include "core/scheduler/device_spec.h"
#include "core/tensor/argument.h"

namespace fuserlab::runtime {

class GpuExecutor;

//! What computes one compute segment's local fusion on one rank.
class SegmentBackend {
 public:
  virtual ~SegmentBackend() = default;
  //! Outputs of `local` (segment `segment` of the program) on `inputs`, as
  //! CPU tensors in the layout runReference gives.
  virtual std::vector<Tensor> run(int segment, const ir::Fusion& local,
                                  const Arguments& inputs) = 0;
};

//! The CPU reference executor as a backend.
class ReferenceSegmentBackend final : public SegmentBackend {
 public:
  std::vector<Tensor> run(int segment, const ir::Fusion& local, const Arguments& inputs) override;
};

//! The local fusions on one GPU of this process: one GpuExecutor per
//! segment, kept across runs; inputs and outputs are host tensors (copied in
//! and out by runOnGpu).
class GpuSegmentBackend final : public SegmentBackend {
 public:
  GpuSegmentBackend(int device, compiler::CompileOptions options);
  ~GpuSegmentBackend() override;
  std::vector<Tensor> run(int segment, const ir::Fusion& local, const Arguments& inputs) override;

 private:
  int device_;
  compiler::CompileOptions options_;
  std::map<int, std::unique_ptr<GpuExecutor>> executors_;
};

//! One collective a rank performed, for the run's report.
struct CommunicationRecord {
  int segment = 0;
  std::string collective;  //!< "allreduce", "allgather", ...
  std::string tensor;      //!< the tensor it produced (complete fusion name)
  int64_t bytes = 0;       //!< bytes this rank sent
};

class MultiDeviceProgram {
 public:
  //! Compiles `fusion` (passes, segmentation, scheduler choice) at the
  //! shapes of `globalInputs` (whole tensors, possibly metadata-only) for a
  //! run on `ranks` ranks. A mesh that is neither the ranks nor one of them
  //! is a UserError.
  MultiDeviceProgram(const ir::Fusion& fusion, const Arguments& globalInputs, int64_t ranks,
                     const compiler::CompileOptions& options = {},
                     const scheduler::DeviceSpec& device = scheduler::defaultDevice());
  ~MultiDeviceProgram();

  int64_t ranks() const { return ranks_; }
  const CompiledFusion& compiled() const { return compiled_; }

  //! Runs rank `comm.rank()` on `globalInputs` (it takes its own shard).
  //! Returns the rank's outputs: its shard of each sharded output, the whole
  //! tensor otherwise. `records`, when given, receives the collectives.
  std::vector<Tensor> runRank(const Arguments& globalInputs, multidevice::Communicator& comm,
                              SegmentBackend& backend,
                              std::vector<CommunicationRecord>* records = nullptr) const;

  //! The whole outputs from every rank's (perRank[rank][output]).
  std::vector<Tensor> gather(const std::vector<std::vector<Tensor>>& perRank) const;

 private:
  int64_t ranks_;
  CompiledFusion compiled_;
  // Per segment: its local fusion (null for communication segments).
  std::vector<std::unique_ptr<ir::Fusion>> local_;
};

//! Runs `program` with its ranks as threads of this process (a
//! ThreadCommunicator) on the CPU reference; returns every rank's outputs.
//! A rank's failure stops the others and is rethrown.
std::vector<std::vector<Tensor>> runRanksAsThreads(
    const MultiDeviceProgram& program, const Arguments& globalInputs,
    std::vector<CommunicationRecord>* records = nullptr);

}  // namespace fuserlab::runtime
