// RunnerPool: several VariantRunners measuring one batch at once, one per
// GPU of the host (issue 48 item 1: `tune --devices 0,1`). Each runner is a
// WorkerRunner whose worker process has its own GPU; the variants are built
// once on the host (the Builder, NVRTC on every core) before the batch is
// handed here, and each is timed on exactly one GPU. Runners take the next
// variant of the batch as they come free (a shared counter), so a GPU that
// draws slow variants does not hold the others back. Each outcome goes back
// to the calling thread as it is finished, which stores it and reports
// progress: the database and the listener never see two threads.
//
// The GPUs must be of one model (one device fingerprint): the results are
// keyed by the fingerprint of the target's device. tune checks it before it
// builds a pool.
#pragma once

#include <memory>
#include <vector>

#include "tuner/tuner.h"

namespace fuserlab::tuner {

class RunnerPool : public VariantRunner {
 public:
  explicit RunnerPool(std::vector<std::unique_ptr<VariantRunner>> runners);

  //! One variant on the first runner.
  VariantOutcome run(const TuningTarget& target, const Variant& variant) override;
  void runBatch(const TuningTarget& target, const std::vector<const Variant*>& variants,
                const StopCheck& stop, const OutcomeSink& done) override;
  //! The highest of the runners' (the lowest, most cautious floor); one GPU
  //! model, so they differ by noise only.
  std::optional<double> copyBytesPerSecond() const override;

  size_t size() const { return runners_.size(); }
  VariantRunner& runner(size_t index) { return *runners_.at(index); }
  //! Variants each runner has measured so far.
  const std::vector<int64_t>& measuredPerRunner() const { return measured_; }

 private:
  std::vector<std::unique_ptr<VariantRunner>> runners_;
  std::vector<int64_t> measured_;
};

//! "0,1", "all" (with `available` GPUs) or "2" -> the GPU indices, sorted,
//! each once; UserError for an index not below `available` or bad text.
std::vector<int> parseDeviceList(const std::string& text, int available);

}  // namespace fuserlab::tuner
