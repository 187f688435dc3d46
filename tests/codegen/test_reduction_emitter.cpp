// ReductionEmitterTest: the reduction and persistent emitters. Every
// reduction-family segment of every bundled example compiles with NVRTC for
// sm_80 and sm_90 with the heuristic params of the A100 and the H100 and both
// upcast strategies; on the normalization examples every params variant the
// tuner may choose (vectorization 1/2/4/8, register or shared-memory
// storage, projection on or off, persistent batch sizes, grid splits) that
// the scheduler's rejectParams accepts compiles too. Set
// FUSERLAB_ALL_BATCH_SIZES=1 to try every batch size instead of a spread.
// Kernels are only compiled here; tests/gpu runs them against the CPU
// reference. test_reduction_kernels.cpp checks single kernels' source.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/cuda/nvrtc_compiler.h"
#include "core/ir/error.h"
#include "core/scheduler/analysis/reduction_pattern.h"
#include "core/scheduler/reduction/launch_shape.h"
#include "core/scheduler/registry.h"
#include "tests/codegen/reduction_examples.h"

namespace fuserlab::codegen {
namespace {

struct Variant {
  std::string label;
  GeneratedKernel kernel;
};

// Compiles kernels with NVRTC on a few threads; failures as messages.
std::vector<std::string> compileAll(const std::vector<Variant>& variants,
                                    const std::vector<int>& archs) {
  std::vector<std::string> failures;
  std::mutex mutex;
  std::atomic<size_t> next{0};
  const size_t jobs = variants.size() * archs.size();
  auto work = [&] {
    for (size_t i = next++; i < jobs; i = next++) {
      const Variant& v = variants[i / archs.size()];
      const int arch = archs[i % archs.size()];
      // A kernel made for clusters (an H100's) needs sm_90.
      if (arch < 90 && v.kernel.launch.cluster != std::array<int64_t, 3>{1, 1, 1}) continue;
      try {
        const runtime::NvrtcOutput out = runtime::compileWithNvrtc(v.kernel, arch);
        if (out.cubin.empty()) {
          std::lock_guard<std::mutex> lock(mutex);
          failures.push_back(v.label + " sm_" + std::to_string(arch) + ": empty cubin");
        }
      } catch (const std::exception& error) {
        std::lock_guard<std::mutex> lock(mutex);
        failures.push_back(v.label + " sm_" + std::to_string(arch) + ": " + error.what());
      }
    }
  };
  const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  std::sort(failures.begin(), failures.end());
  return failures;
}

std::string describe(const ReductionParams& p) {
  return "vect " + std::to_string(p.vectorizationFactor) + ", " +
         std::string(scheduler::toString(p.persistentStorage)) +
         (p.projectPersistentBuffers ? ", projected" : "") + ", batch " +
         std::to_string(p.persistentBatchSize) + ", block " + std::to_string(p.blockDimX) + "x" +
         std::to_string(p.blockDimY) + ", grid " + std::to_string(p.gridDimX) + "x" +
         std::to_string(p.gridDimY) + ", unroll " + std::to_string(p.unrollFactorReduction) + "/" +
         std::to_string(p.unrollFactorIteration);
}

// Threads for `needed` chunks, as the inner persistent heuristic rounds them.
int64_t threadsFor(int64_t needed) {
  return needed >= 32 ? scheduler::roundUpTo(needed, 32) : scheduler::nextPowerOfTwo(needed);
}

std::vector<int64_t> batchSizes(int64_t maxBatch, int64_t heuristic) {
  std::vector<int64_t> sizes;
  const bool all = std::getenv("FUSERLAB_ALL_BATCH_SIZES") != nullptr;
  for (int64_t b = 1; b <= maxBatch; ++b) {
    const bool spread = b <= 4 || b == 6 || b == 8 || b == 12 || b == 16 || b == 24 || b == 32;
    if (all || spread || b == heuristic) sizes.push_back(b);
  }
  return sizes;
}

// The params variants of a persistent segment the tuner may choose, that
// rejectParams accepts.
std::vector<ReductionParams> persistentVariants(const BoundSegment& s) {
  const scheduler::Scheduler& scheduler = scheduler::schedulerFor(s.group->choice.type);
  const ReductionParams& base = s.params();
  const scheduler::ReductionPatternResult pattern = scheduler::analyzeReductionPattern(s.fusion());
  const scheduler::ReductionExtents extents =
      scheduler::reductionExtents(*pattern.pattern, *s.info.evaluator).extents;
  const bool inner = base.fastestDimReduction;
  std::vector<ReductionParams> out;
  auto consider = [&](const ReductionParams& p) {
    if (scheduler.rejectParams(s.fusion(), s.info, p)) return;
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (int64_t vect : {1, 2, 4, 8}) {
    for (PersistentStorage storage :
         {PersistentStorage::Registers, PersistentStorage::SharedMemory}) {
      for (bool project : {false, true}) {
        ReductionParams p = base;
        p.vectorizationFactor = vect;
        p.persistentStorage = storage;
        p.projectPersistentBuffers = project;
        if (inner) {
          const int64_t chunks = scheduler::ceilDiv(extents.reductionExtent, vect);
          for (int64_t batch :
               batchSizes(std::min<int64_t>(chunks, 64), base.persistentBatchSize)) {
            p.persistentBatchSize = batch;
            p.blockDimX = threadsFor(scheduler::ceilDiv(chunks, batch));
            p.blockDimY =
                std::max<int64_t>(1, std::min<int64_t>(base.blockDimY, 1024 / p.blockDimX));
            p.gridDimX = scheduler::ceilDiv(extents.iterationExtent, p.blockDimY);
            p.crossBlockReduction = p.blockDimX > 1;
            consider(p);
          }
        } else {
          const int64_t columns = scheduler::ceilDiv(extents.iterationExtent, vect);
          p.gridDimX = scheduler::ceilDiv(columns, p.blockDimY);
          const int64_t share = scheduler::ceilDiv(extents.reductionExtent, p.gridDimY);
          for (int64_t batch : batchSizes(std::min<int64_t>(share, 64), base.persistentBatchSize)) {
            p.blockDimX = std::min<int64_t>(
                scheduler::nextPowerOfTwo(scheduler::ceilDiv(share, batch)), 1024 / p.blockDimY);
            p.persistentBatchSize = scheduler::ceilDiv(share, p.blockDimX);
            p.crossBlockReduction = p.blockDimX > 1;
            consider(p);
          }
        }
      }
    }
  }
  return out;
}

// Variants of a reduction segment: vectorization, unrolling, grid splits.
std::vector<ReductionParams> reductionVariants(const BoundSegment& s) {
  const scheduler::Scheduler& scheduler = scheduler::schedulerFor(s.group->choice.type);
  const ReductionParams& base = s.params();
  std::vector<ReductionParams> out;
  auto consider = [&](const ReductionParams& p) {
    if (scheduler.rejectParams(s.fusion(), s.info, p)) return;
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  };
  for (int64_t vect : {1, 2, 4, 8}) {
    for (int64_t unroll : {1, 2, 4}) {
      for (int64_t iterationUnroll : {1, 2}) {
        for (int64_t gridY : {int64_t{1}, int64_t{3}, base.gridDimY}) {
          ReductionParams p = base;
          p.vectorizationFactor = vect;
          p.unrollFactorReduction = unroll;
          p.unrollFactorIteration = iterationUnroll;
          p.gridDimY = gridY;
          p.crossGridReduction = gridY > 1;
          if (!base.fastestDimReduction) {
            p.gridDimX = std::max<int64_t>(1, base.gridDimX * base.vectorizationFactor / vect);
          }
          consider(p);
        }
      }
    }
  }
  return out;
}

TEST_F(ReductionEmitterTest, EveryExampleSegmentCompilesForSm80AndSm90) {
  std::vector<Variant> kernels;
  std::vector<std::string> failures;
  std::vector<std::unique_ptr<CompiledExample>> keep;
  for (const std::string& file : exampleFiles()) {
    for (const auto& [device, arch] : {std::pair<std::string, int>{"a100", 80}, {"h100", 90}}) {
      for (const std::string upcast : {"privatize", "forward"}) {
        for (auto& example : compileExample(file, device, upcast)) {
          for (const BoundSegment& s : example->segments) {
            const std::string label = example->label + " segment " + std::to_string(s.group->id) +
                                      " (" + describe(s.params()) + ")";
            try {
              kernels.push_back({label, generate(s, s.params())});
            } catch (const UserError& error) {
              failures.push_back(label + ": " + error.message());
            }
          }
          keep.push_back(std::move(example));
        }
      }
    }
  }
  for (const std::string& f : compileAll(kernels, {80, 90})) failures.push_back(f);
  for (const std::string& f : failures) ADD_FAILURE() << f;
  // layer_norm, rms_norm, softmax, batch_norm_outer, welford, sum and outer
  // reductions, seeds 000 and 001, causal mask: each on two devices and
  // under two upcast strategies.
  EXPECT_GE(kernels.size(), 40u);
}

class NormalizationVariantsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NormalizationVariantsTest, EveryAcceptedVariantCompiles) {
  std::vector<Variant> kernels;
  std::vector<std::string> failures;
  int persistentSegments = 0;
  for (auto& example : compileExample(GetParam(), "h100", "privatize")) {
    for (const BoundSegment& s : example->segments) {
      const bool persistent = s.params().persistentKernel;
      persistentSegments += persistent ? 1 : 0;
      const std::vector<ReductionParams> variants =
          persistent ? persistentVariants(s) : reductionVariants(s);
      EXPECT_GT(variants.size(), 1u) << example->label;
      for (const ReductionParams& p : variants) {
        const std::string label =
            example->label + " segment " + std::to_string(s.group->id) + " (" + describe(p) + ")";
        try {
          kernels.push_back({label, generate(s, p)});
        } catch (const UserError& error) {
          failures.push_back(label + ": " + error.message());
        }
      }
    }
  }
  std::cout << "[ variants ] " << GetParam() << ": " << kernels.size() << " kernels\n";
  for (const std::string& f : compileAll(kernels, {90})) failures.push_back(f);
  for (const std::string& f : failures) ADD_FAILURE() << f;
  if (GetParam() != "welford.py") {
    EXPECT_GT(persistentSegments, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Normalization, NormalizationVariantsTest,
    ::testing::Values("layer_norm.py", "rms_norm.py", "softmax.py", "batch_norm_outer.py",
                      "welford.py", "seed000_forwarding_miss.py", "seed001_nanogpt_layer_norm.py"),
    [](const ::testing::TestParamInfo<std::string>& test) {
      std::string name = test.param.substr(0, test.param.size() - 3);
      std::replace_if(
          name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
      return name;
    });

}  // namespace
}  // namespace fuserlab::codegen
