// serveWorker: the worker side of the protocol (worker.h).
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "core/codegen/kernel.h"
#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_error.h"
#include "core/cuda/cuda_memory.h"
#include "core/cuda/cuda_module.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "core/reference/reference_run.h"
#include "core/runtime/gpu_executor.h"
#include "core/tensor/result_check.h"
#include "measure/cupti_timer.h"
#include "measure/l2_flush.h"
#include "tuner/worker.h"

namespace fuserlab::tuner {
namespace {

using report::Json;

runtime::Arguments hostCopy(const runtime::Arguments& inputs) {
  runtime::Arguments copies;
  for (const runtime::Argument& arg : inputs) {
    const auto* t = std::get_if<runtime::Tensor>(&arg);
    if (t == nullptr) {
      copies.push_back(arg);
      continue;
    }
    runtime::Tensor copy = runtime::Tensor::emptyStrided(t->dtype(), t->sizes(), t->strides());
    runtime::copyInto(*t, copy);
    copies.emplace_back(copy);
  }
  return copies;
}

// The test switch: a kernel that writes a terabyte past its pointer, then
// traps, so the context is lost as a faulting variant would lose it.
void launchFaultingKernel(const scheduler::DeviceSpec& spec) {
  codegen::GeneratedKernel kernel;
  kernel.name = "fuserlab_tuner_fault";
  kernel.source =
      "extern \"C\" __global__ void fuserlab_tuner_fault(int* p) {\n"
      "  *(volatile int*)(p + (1ll << 38)) = 1;\n"
      "  __trap();\n"
      "}\n";
  const runtime::NvrtcOutput out = runtime::compileWithNvrtc(kernel, spec.computeCapability());
  runtime::CudaModule module(std::string_view(out.cubin.data(), out.cubin.size()),
                             "the fault switch");
  const runtime::CudaKernel k = module.kernel(kernel.name, "the fault switch");
  runtime::KernelArguments args;
  args.addPointer(nullptr);
  k.launch(codegen::LaunchConfig{}, args.pointers(), "the fault switch");
  runtime::synchronizeCuda("the fault switch (FUSERLAB_TUNER_FAULT_VARIANT)");
}

class Worker {
 public:
  explicit Worker(const WorkerSetup& setup) : setup_(setup) {
    runtime::setCudaDevice(setup.device, "the tuning worker");
    const auto spec = runtime::queryCudaDevice(setup.device);
    FL_CHECK(spec.has_value(), "no CUDA device cuda:", setup.device, ": ",
             runtime::cudaUnavailableReason());
    spec_ = *spec;
    target_ =
        makeTuningTarget(*setup.fusion, setup.options, spec_, setup.hostInputs, setup.segment);
    reference_ = runtime::runReference(*setup.fusion, hostCopy(setup.hostInputs));
    std::string why;
    timer_ = CuptiTimer::create(&why);
    FL_CHECK(timer_ != nullptr, why);
    // Cold, clean L2 before each sample (runtime::L2Flush), as bench does.
    flush_ = std::make_unique<runtime::L2Flush>(spec_, setup.device);
    if (const char* fault = std::getenv("FUSERLAB_TUNER_FAULT_VARIANT")) {
      faultVariant_ = ir::parseInteger(fault, "FUSERLAB_TUNER_FAULT_VARIANT", -1);
    }
  }

  const scheduler::DeviceSpec& spec() const { return spec_; }

  // The reply to one request; `fatal` when the context may be lost.
  Json serve(const Json& request, bool& fatal) {
    const int64_t id = request.get("variant")->asInt();
    Json reply = Json::object();
    reply.set("variant", id);
    try {
      if (id == faultVariant_) launchFaultingKernel(spec_);
      const scheduler::HeuristicParams params =
          scheduler::paramsFromJson(target_->scheduler, *request.get("params"));
      const std::vector<double> samples = measure(params, reply);
      reply.set("samples", Json::arrayOf(samples));
    } catch (const runtime::CudaError& error) {
      reply.set("error", std::string("CUDA error: ") + error.what());
      reply.set("fatal", true);
      fatal = true;
    } catch (const std::exception& error) {
      reply.set("error", std::string(error.what()));
      reply.set("fatal", false);
    }
    return reply;
  }

 private:
  std::vector<double> measure(const scheduler::HeuristicParams& params, Json& reply) {
    PinnedParamsProvider pinned(target_->key, params);
    runtime::GpuExecutor executor(*setup_.fusion, setup_.device, setup_.options);
    executor.setHeuristicProvider(&pinned);

    // Validation: fresh inputs, poisoned outputs, against the reference.
    runtime::GpuRunOptions checked;
    checked.poisonOutputs = true;
    checked.synchronizeEachKernel = true;
    const runtime::HostRunResult result =
        runtime::runOnGpu(executor, hostCopy(setup_.hostInputs), checked);
    const report::CompileReport* report = executor.lastReport();
    FL_CHECK(report != nullptr && static_cast<size_t>(setup_.segment) < report->segments.size() &&
                 report->segments[setup_.segment].paramsSource == kSourceTuner,
             "the runtime did not take the variant's params",
             report && static_cast<size_t>(setup_.segment) < report->segments.size()
                 ? ": " + report->segments[setup_.segment].paramsNote
                 : std::string());
    for (size_t i = 0; i < result.outputs.size(); ++i) {
      const runtime::TensorCheck c = runtime::checkTensor(
          result.outputs[i], reference_[i], setup_.fusion->outputs()[i].val->name(),
          runtime::toleranceForOutput(*setup_.fusion, i));
      FL_CHECK(c.passed, "wrong results: ", c.message);
    }

    // Timing on device-resident inputs.
    const runtime::DeviceArguments inputs =
        runtime::toDeviceArguments(setup_.hostInputs, setup_.device);
    for (int i = 0; i < setup_.sampling.warmup; ++i) executor.run(inputs.arguments);
    std::vector<double> samples;
    int64_t redone = 0;
    bool redoing = false;
    while (static_cast<int>(samples.size()) < setup_.sampling.maxSamples) {
      flush_->enqueue();
      timer_->beginSample(++sampleId_);
      executor.run(inputs.arguments);
      timer_->endSample();
      std::optional<double> duration;
      const std::vector<KernelRecord> records = timer_->collect();
      for (const KernelRecord& r : records) {
        if (r.sample == sampleId_ && r.name == target_->kernelName) {
          duration = duration.value_or(0) + r.durationNs();
        }
      }
      if (!duration) {
        std::string seen;
        for (const KernelRecord& r : records) {
          seen += (seen.empty() ? "" : ", ") + r.name + " (sample " + std::to_string(r.sample) +
                  (r.correlated ? ")" : ", uncorrelated)");
        }
        FL_CHECK(false, "CUPTI reported no ", target_->kernelName, " kernel for sample ", sampleId_,
                 "; its records: ", seen.empty() ? "none" : seen);
      }
      if (samples.size() >= 5 && !redoing) {
        const SampleStats now = summarize(samples);
        if (*duration > setup_.sampling.redoFactor * now.medianNs) {
          ++redone;
          redoing = true;  // redo once; a second deviation stands
          continue;
        }
      }
      redoing = false;
      samples.push_back(*duration);
      if (static_cast<int>(samples.size()) >= setup_.sampling.minSamples &&
          summarize(samples).relativeSpread() < setup_.sampling.targetSpread) {
        break;
      }
    }
    reply.set("redone", redone);
    return samples;
  }

  const WorkerSetup& setup_;
  scheduler::DeviceSpec spec_;
  std::unique_ptr<TuningTarget> target_;
  std::vector<runtime::Tensor> reference_;
  std::unique_ptr<CuptiTimer> timer_;
  std::unique_ptr<runtime::L2Flush> flush_;
  int64_t faultVariant_ = -1;
  uint64_t sampleId_ = 0;
};

}  // namespace

int serveWorker(const WorkerSetup& setup, std::istream& in, std::ostream& out) {
  std::unique_ptr<Worker> worker;
  try {
    worker = std::make_unique<Worker>(setup);
  } catch (const std::exception& error) {
    Json fatal = Json::object();
    fatal.set("fatal", std::string(error.what()));
    out << fatal.dump(-1) << "\n" << std::flush;
    return 2;
  }
  Json hello = Json::object();
  hello.set("ready", true);
  hello.set("device", worker->spec().name);
  out << hello.dump(-1) << "\n" << std::flush;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    bool fatal = false;
    Json reply;
    try {
      reply = worker->serve(Json::parse(line), fatal);
    } catch (const std::exception& error) {
      reply = Json::object();
      reply.set("error", std::string("bad request: ") + error.what());
    }
    out << reply.dump(-1) << "\n" << std::flush;
    if (fatal) return 3;
  }
  return 0;
}

}  // namespace fuserlab::tuner
