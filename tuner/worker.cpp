// serveWorker: the worker side of the protocol (worker.h).
#include <cuda_runtime_api.h>

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
#include "measure/benchmark.h"
#include "measure/cupti_timer.h"
#include "measure/l2_flush.h"
#include "tuner/output_comparison.h"
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

// The test switch FUSERLAB_TUNER_WRONG_VARIANT: a variant whose kernel got
// the last element of output 0 wrong (its value * 1.5 + 1), as a bad index
// or a missed element would. Changed on the device, before any check.
void spoilLastElement(const runtime::Tensor& output) {
  if (output.numel() == 0) return;
  int64_t offset = 0;
  for (int64_t d = 0; d < output.dim(); ++d) {
    offset += (output.sizes()[d] - 1) * output.strides()[d];
  }
  runtime::Tensor last = output.asStrided({}, {}, output.storageOffset() + offset);
  if (output.isCpu()) {
    last.set({}, last.item({}) * 1.5 + 1);
    return;
  }
  runtime::Tensor host = runtime::toHost(last, "the wrong-variant switch");
  host.set({}, host.item({}) * 1.5 + 1);
  runtime::checkCuda(
      cudaMemcpy(last.data(), host.data(), static_cast<size_t>(ir::sizeInBytes(output.dtype())),
                 cudaMemcpyHostToDevice),
      "cudaMemcpy", "the wrong-variant switch (FUSERLAB_TUNER_WRONG_VARIANT)");
}

int64_t variantSwitch(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value ? ir::parseInteger(value, name, -1) : -1;
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
    // The bandwidth floor's copy bandwidth (bandwidth_floor.h), as bench
    // measures it, before anything of ours holds memory; none if it fails.
    try {
      copyBytesPerSecond_ = runtime::measureCopyBandwidth(setup.device).bytesPerSecond;
    } catch (const std::exception&) {
      copyBytesPerSecond_ = 0;
    }
    std::string why;
    timer_ = CuptiTimer::create(&why);
    FL_CHECK(timer_ != nullptr, why);
    // Cold, clean L2 before each sample (runtime::L2Flush), as bench does.
    flush_ = std::make_unique<runtime::L2Flush>(spec_, setup.device);
    faultVariant_ = variantSwitch("FUSERLAB_TUNER_FAULT_VARIANT");
    wrongVariant_ = variantSwitch("FUSERLAB_TUNER_WRONG_VARIANT");
    defaultJson_ = scheduler::paramsToJson(target_->defaultParams).dump(-1);
    compareOnDevice_ = setup.compareWithDefault;
    for (const ir::FusionOutput& output : setup.fusion->outputs()) {
      compareOnDevice_ = compareOnDevice_ && comparableOnDevice(output.val->dtype());
    }
  }

  const scheduler::DeviceSpec& spec() const { return spec_; }
  double copyBytesPerSecond() const { return copyBytesPerSecond_; }

  // The reply to one request; `fatal` when the context may be lost.
  Json serve(const Json& request, bool& fatal) {
    const int64_t id = request.get("variant")->asInt();
    Json reply = Json::object();
    reply.set("variant", id);
    try {
      if (id == faultVariant_) launchFaultingKernel(spec_);
      const scheduler::HeuristicParams params =
          scheduler::paramsFromJson(target_->scheduler, *request.get("params"));
      const std::vector<double> samples = measure(id, params, reply);
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
  // The fusion run once on fresh device inputs with every output poisoned,
  // the variant's params pinned to the segment. `inputs` stay alive with the
  // outputs (an output aliasing an input is that input).
  struct CheckedRun {
    runtime::DeviceArguments inputs;
    runtime::GpuRunResult run;
  };

  CheckedRun runChecked(runtime::GpuExecutor& executor, int64_t id) {
    CheckedRun checked;
    checked.inputs = runtime::toDeviceArguments(setup_.hostInputs, setup_.device, setup_.fusion);
    runtime::GpuRunOptions options;
    options.poisonOutputs = true;
    options.synchronizeEachKernel = true;
    checked.run = executor.run(checked.inputs.arguments, options);
    const report::CompileReport* report = executor.lastReport();
    FL_CHECK(report != nullptr && static_cast<size_t>(setup_.segment) < report->segments.size() &&
                 report->segments[setup_.segment].paramsSource == kSourceTuner,
             "the runtime did not take the variant's params",
             report && static_cast<size_t>(setup_.segment) < report->segments.size()
                 ? ": " + report->segments[setup_.segment].paramsNote
                 : std::string());
    if (id == wrongVariant_ && !checked.run.outputs.empty()) {
      spoilLastElement(checked.run.outputs[0].tensor);
    }
    return checked;
  }

  // Every output against the CPU reference (copied to the host).
  void checkAgainstReference(const runtime::GpuRunResult& run) {
    for (size_t i = 0; i < run.outputs.size(); ++i) {
      const runtime::Tensor host =
          runtime::toHost(run.outputs[i].tensor, "output " + std::to_string(i));
      const runtime::TensorCheck c =
          runtime::checkTensor(host, reference_[i], setup_.fusion->outputs()[i].val->name(),
                               runtime::toleranceForOutput(*setup_.fusion, i));
      FL_CHECK(c.passed, "wrong results: ", c.message);
    }
  }

  // Every output against the default variant's, on the GPU.
  void checkAgainstDefault(const runtime::GpuRunResult& run) {
    for (size_t i = 0; i < run.outputs.size(); ++i) {
      const runtime::Tensor& actual = run.outputs[i].tensor;
      const runtime::Tensor& expected = default_->run.outputs[i].tensor;
      const std::string name = setup_.fusion->outputs()[i].val->name();
      const runtime::Tolerance tolerance = runtime::toleranceForOutput(*setup_.fusion, i);
      // A scalar output is a 0-dim CPU tensor: compared on the host.
      const runtime::TensorCheck c =
          actual.isCpu() || expected.isCpu()
              ? runtime::checkTensor(actual, expected, name, tolerance)
              : comparer_->compare(actual, expected, name, tolerance, defaultMaxAbs_[i]);
      FL_CHECK(c.passed, "wrong results: ", c.message);
    }
  }

  // Keeps `checked` (verified against the reference) as the default's
  // outputs every later variant is compared with on the GPU.
  void keepDefault(CheckedRun checked) {
    if (!comparer_) comparer_ = std::make_unique<DeviceComparer>(spec_, setup_.device);
    defaultMaxAbs_.clear();
    for (const runtime::DeviceTensor& output : checked.run.outputs) {
      defaultMaxAbs_.push_back(output.tensor.isCpu() ? 0 : comparer_->maxAbs(output.tensor));
    }
    default_ = std::make_unique<CheckedRun>(std::move(checked));
  }

  // The default variant run and checked against the reference in this
  // worker, for a worker whose first variant is another one (a pool's second
  // GPU, a worker started again after a fault). A default that fails leaves
  // every variant to the CPU reference.
  void establishDefault() {
    defaultTried_ = true;
    try {
      PinnedParamsProvider pinned(target_->key, target_->defaultParams);
      runtime::GpuExecutor executor(*setup_.fusion, setup_.device, setup_.options);
      executor.setHeuristicProvider(&pinned);
      CheckedRun checked = runChecked(executor, 0);
      checkAgainstReference(checked.run);
      keepDefault(std::move(checked));
    } catch (const runtime::CudaError&) {
      throw;  // the context may be lost: the variant fails, the worker ends
    } catch (const std::exception&) {
      default_.reset();
    }
  }

  std::vector<double> measure(int64_t id, const scheduler::HeuristicParams& params, Json& reply) {
    PinnedParamsProvider pinned(target_->key, params);
    runtime::GpuExecutor executor(*setup_.fusion, setup_.device, setup_.options);
    executor.setHeuristicProvider(&pinned);

    // Validation: fresh inputs, poisoned outputs. The default variant is
    // checked against the CPU reference and its outputs kept on the GPU;
    // every other variant is compared with those there, or with the
    // reference where the default failed (or cannot be compared on the GPU).
    const bool isDefault = scheduler::paramsToJson(params).dump(-1) == defaultJson_;
    if (!isDefault && compareOnDevice_ && !default_ && !defaultTried_) establishDefault();
    CheckedRun checked = runChecked(executor, id);
    if (isDefault || !default_) {
      reply.set("check", std::string(kCheckCpuReference));
      defaultTried_ = defaultTried_ || isDefault;
      checkAgainstReference(checked.run);
      if (isDefault && compareOnDevice_) keepDefault(std::move(checked));
    } else {
      reply.set("check", std::string(kCheckDefaultOutputs));
      checkAgainstDefault(checked.run);
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
  int64_t wrongVariant_ = -1;
  uint64_t sampleId_ = 0;
  double copyBytesPerSecond_ = 0;
  // The default variant's params (as JSON text), its checked run once
  // verified, and each output's largest finite |value|.
  std::string defaultJson_;
  bool compareOnDevice_ = true;
  bool defaultTried_ = false;
  std::unique_ptr<CheckedRun> default_;
  std::vector<double> defaultMaxAbs_;
  std::unique_ptr<DeviceComparer> comparer_;
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
  if (worker->copyBytesPerSecond() > 0) hello.set("copy_bytes_per_s", worker->copyBytesPerSecond());
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
