#include "core/runtime/executor_planner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <unordered_map>

#include "core/codegen/codegen.h"
#include "core/compiler/fusion_compiler.h"
#include "core/compiler/input_description.h"
#include "core/compiler/segment_kernels.h"
#include "core/cuda/cuda_device.h"
#include "core/cuda/cuda_error.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/ir/error.h"
#include "core/runtime/copy_kernel.h"
#include "core/runtime/cublaslt_matmul.h"
#include "core/runtime/device_views.h"
#include "core/runtime/in_place_writes.h"
#include "core/runtime/matmul_call.h"
#include "core/runtime/plan_graph.h"
#include "core/runtime/run_keys.h"
#include "core/scheduler/expr_eval/cpu_reference_ops.h"
#include "core/scheduler/pointwise/sort_segment.h"
#include "core/scheduler/registry.h"
#include "core/tensor/binding.h"

namespace fuserlab::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string listString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    out += (i ? "," : "") + std::to_string(values[i]);
  }
  return out + "]";
}

std::string segmentName(const segmenter::SegmentedGroup& group) {
  return "segment " + std::to_string(group.id) + " (" +
         std::string(scheduler::toString(group.choice.type)) + ")";
}

bool isLibraryCall(ir::ExprType type) {
  return type == ir::ExprType::Matmul || type == ir::ExprType::Linear || type == ir::ExprType::Sdpa;
}

bool producesTensor(const ir::Expr& expr) {
  for (const ir::Val* out : expr.outputs()) {
    if (out->isA<ir::TensorView>()) return true;
  }
  return false;
}

std::vector<int64_t> extentsOf(const ir::TensorView& tv, const ir::ExpressionEvaluator& evaluator) {
  std::vector<int64_t> sizes;
  for (const ir::IterDomain* id : tv.logicalNoReductions()) {
    sizes.push_back(evaluator.evaluateExtent(id));
  }
  return sizes;
}

// Plans one run of `segmented` on `inputs` (already bound in `evaluator`).
// The length of the lines `sort` (an argsort or topk of the complete
// fusion) orders, at the bound sizes.
int64_t sortLineLength(const ir::Expr& sort, const ir::ExpressionEvaluator& evaluator) {
  const auto& axes = sort.input(0)->as<ir::TensorView>()->logicalNoReductions();
  if (axes.empty()) return 1;
  return evaluator.evaluateExtent(axes[static_cast<size_t>(sort.attrs().dim)]);
}

class Planner {
 public:
  Planner(GpuExecutor::Signature& signature, const scheduler::DeviceSpec& spec, int device,
          bool checkParams, KernelCache& cache, const KernelCompiler& compiler,
          std::map<std::string, std::shared_ptr<CudaModule>>& modules)
      : signature_(signature),
        segmented_(*signature.compiled.segmented),
        spec_(spec),
        device_(device),
        checkParams_(checkParams),
        cache_(cache),
        compiler_(compiler),
        modules_(modules) {}

  Plan plan(const Arguments& inputs) {
    const ir::Fusion& complete = segmented_.complete();
    const Arguments bound = bindInputs(complete, inputs, evaluator_);
    for (size_t i = 0; i < complete.inputs().size(); ++i) {
      const ir::Val* input = complete.inputs()[i];
      if (!input->isA<ir::TensorView>()) continue;
      const Tensor& given = std::get<Tensor>(bound[i]);
      FL_CHECK(!given.isMetadataOnly(), "input ", input->name(),
               " has an allocation domain that splits or merges axes; the cuda "
               "backend passes tensors to kernels by strides of their logical "
               "axes, which cannot express it (copy needed); run it with "
               "--backend cpu");
      // CPU scalars (inputs declared is_cpu=True) stay on the host: a
      // kernel takes them by value. Every other tensor, a 0-dim one too,
      // lives on the device: kernels read it and aliased outputs write it
      // there (a 0-dim input kept on the host was written through its host
      // address: an illegal address).
      DeviceTensor value{given, nullptr};
      const bool cpuScalar = input->as<ir::TensorView>()->isCpuScalar();
      if (given.isCpu() && (given.dim() > 0 || !cpuScalar)) {
        value = toDevice(given, device_, "input " + input->name());
        plan_.copiedFromHost = true;
      }
      values_[input] = value;
      inputValues_[input] = value;
    }
    // Groups are ordered by their first expr; a group runs once every value
    // it reads is there.
    const auto& groups = segmented_.groups();
    std::vector<bool> done(groups.size(), false);
    for (size_t finished = 0; finished < groups.size();) {
      bool progress = false;
      for (size_t g = 0; g < groups.size(); ++g) {
        if (done[g] || !ready(groups[g])) continue;
        planGroup(groups[g]);
        done[g] = true;
        ++finished;
        progress = true;
      }
      FL_ASSERT(progress, "segments ", "with unmet inputs: the segment graph has a cycle");
    }
    // A fusion output that is a view of an input updated in place shows the
    // input as it was (as the CPU reference does): copied before the update.
    for (const ir::FusionOutput& output : complete.outputs()) {
      if (output.aliasOf != nullptr || !output.val->isA<ir::TensorView>()) continue;
      auto it = values_.find(output.val);
      if (it == values_.end()) continue;
      for (const DeferredWrite& write : deferredWrites_) {
        if (!sharesMemory(it->second.tensor, write.into.tensor)) continue;
        DeviceTensor copy = allocateDevice(it->second.tensor.dtype(), it->second.tensor.sizes(),
                                           Tensor::contiguousStrides(it->second.tensor.sizes()),
                                           device_, "output " + output.val->name());
        plan_.freshBuffers.push_back(copy.tensor);
        keepAlive_.push_back(copy.buffer);
        plan_.copies.push_back("output " + output.val->name() + ": a view of " + write.what +
                               "'s input, copied before the in-place update");
        planCopyInto("output " + output.val->name() + " copy", it->second, copy);
        it->second = copy;
        break;
      }
    }
    for (const DeferredWrite& write : deferredWrites_) {
      planCopyInto(write.what + " (written back in place)", write.from, write.into);
    }
    for (const ir::FusionOutput& output : complete.outputs()) {
      if (const auto* scalar = output.val->as<ir::Scalar>()) {
        const double value = evaluator_.evaluateDouble(scalar, "scalar output " + scalar->name());
        Tensor t = Tensor::empty(scalar->dtype(), {});
        t.fill(value);
        plan_.outputs.push_back({t, nullptr});
        continue;
      }
      auto it = values_.find(output.val);
      FL_ASSERT(it != values_.end(), "output ", output.val->name(), " was computed by no segment");
      plan_.outputs.push_back(it->second);
    }
    return std::move(plan_);
  }

 private:
  bool ready(const segmenter::SegmentedGroup& group) const {
    for (const ir::Val* val : group.inputs) {
      if (val->isA<ir::TensorView>() && values_.count(val) == 0) return false;
    }
    return true;
  }

  // The segment's inputs as Arguments: device tensors, and scalars from the
  // complete fusion's evaluator.
  Arguments segmentArguments(const segmenter::SegmentedGroup& group) {
    Arguments args;
    for (const ir::Val* val : group.inputs) {
      if (val->isA<ir::TensorView>()) {
        args.emplace_back(values_.at(val).tensor);
        continue;
      }
      const auto* scalar = val->as<ir::Scalar>();
      FL_ASSERT(scalar != nullptr, "segment input ", val->name(),
                " is neither a tensor nor a scalar");
      auto value = evaluator_.evaluate(scalar);
      FL_ASSERT(value.has_value(), segmentName(group), ": scalar input ", val->name(),
                " has no value");
      args.emplace_back(*value);
    }
    return args;
  }

  // The fusion output entry of `val` with an alias, if any.
  const ir::Val* aliasTarget(const ir::Val* val) const {
    for (const ir::FusionOutput& output : segmented_.complete().outputs()) {
      if (output.val == val && output.aliasOf != nullptr) return output.aliasOf;
    }
    return nullptr;
  }

  void planGroup(const segmenter::SegmentedGroup& group) {
    FL_ASSERT(group.segment != nullptr, segmentName(group), " has no segment fusion");
    for (const ir::Expr* expr : group.exprs) {  // the complete fusion's
      if (scheduler::isCpuReferenceOnly(expr->type())) {
        throw KernelUnavailable(segmentName(group) + ": " + scheduler::noGpuKernelMessage(*expr));
      }
      // A sort expr_eval took: its lines are too long for the sort kernel.
      if (scheduler::isSortOp(expr->type()) &&
          group.choice.type == scheduler::SchedulerType::ExprEval) {
        throw KernelUnavailable(
            segmentName(group) + ": " +
            scheduler::noSortKernelMessage(*expr, sortLineLength(*expr, evaluator_)));
      }
    }
    const auto* matmul = std::get_if<scheduler::MatmulParams>(&group.choice.params);
    if (matmul != nullptr && matmul->backend == "cublaslt") {
      planLibraryCall(group, *matmul);
    } else if (scheduler::launchesKernel(group.choice.type)) {
      planKernel(group);
    } else {
      planViews(group);
    }
  }

  void planKernel(const segmenter::SegmentedGroup& group) {
    const std::string what = segmentName(group);
    const ir::Fusion& segment = *group.segment;
    Arguments args = segmentArguments(group);
    ir::ExpressionEvaluator segmentEvaluator;
    scheduler::SegmentRuntimeInfo info;
    info.device = &spec_;
    info.evaluator = &segmentEvaluator;
    info.inputs = describeInputs(segment, args, segmentEvaluator);
    if (checkParams_) {
      const scheduler::Scheduler& scheduler = scheduler::schedulerFor(group.choice.type);
      if (auto reason = scheduler.rejectRunTime(segment, info)) throw ParamsRefused{*reason};
      if (auto reason = scheduler.rejectParams(segment, info, group.choice.params)) {
        throw ParamsRefused{*reason};
      }
    }

    std::vector<DeviceTensor> outputs = allocateOutputs(group, segmentEvaluator);

    std::string key = std::to_string(group.id) + "|" + layoutKey(args) + "|";
    for (const DeviceTensor& out : outputs) {
      key += listString(out.tensor.strides()) + "@" + std::to_string(alignmentOf(out.tensor)) + ";";
    }
    std::shared_ptr<GpuExecutor::LoadedKernel>& loaded = signature_.kernels[key];
    if (!loaded) {
      loaded = buildKernel(group, info);
      ++plan_.kernelsBuilt;
    }
    const codegen::GeneratedKernel& generated = loaded->generated;

    PlannedLaunch launch;
    launch.kernel = loaded;
    launch.what = what;
    for (const codegen::KernelParameter& p : generated.parameters) {
      if (p.kind == codegen::KernelParameter::Kind::Scalar) {
        FL_ASSERT(p.segmentInput >= 0 && p.segmentInput < int(args.size()), what,
                  ": scalar parameter ", p.name, " is no segment input");
        const Argument& arg = args[p.segmentInput];
        if (const auto* t = std::get_if<Tensor>(&arg)) {
          FL_ASSERT(t->isCpu() && t->dim() == 0, what, ": scalar parameter ", p.name,
                    " is bound to a device tensor");
          launch.arguments.addScalar(p.dtype, ir::ScalarValue(t->item({})));
        } else {
          launch.arguments.addScalar(p.dtype, std::get<ir::ScalarValue>(arg));
        }
        continue;
      }
      Tensor tensor;
      if (p.segmentInput >= 0) {
        FL_ASSERT(p.segmentInput < int(args.size()), what, ": parameter ", p.name,
                  " names segment input ", p.segmentInput);
        const auto* t = std::get_if<Tensor>(&args[p.segmentInput]);
        FL_ASSERT(t != nullptr, what, ": tensor parameter ", p.name, " is a scalar input");
        tensor = *t;
        if (tensor.isCpu()) {
          DeviceTensor copy = toDevice(tensor, device_, what + " input " + p.name);
          keepAlive_.push_back(copy.buffer);
          plan_.copiedFromHost = true;
          tensor = copy.tensor;
        }
      } else {
        FL_ASSERT(p.segmentOutput >= 0 && p.segmentOutput < int(outputs.size()), what,
                  ": parameter ", p.name, " names no segment value");
        tensor = outputs[p.segmentOutput].tensor;
      }
      FL_ASSERT(tensor.dim() == p.rank, what, ", kernel ", generated.name, ": parameter ", p.name,
                " has rank ", p.rank, " but the tensor is ", tensor.toString());
      if (!p.builtInStrides.empty()) {
        for (int64_t a = 0; a < tensor.dim(); ++a) {
          const int64_t stride = tensor.sizes()[a] == 1 ? 0 : tensor.strides()[a];
          FL_ASSERT(stride == p.builtInStrides[static_cast<size_t>(a)], what, ", kernel ",
                    generated.name, ": parameter ", p.name, " was built for stride ",
                    p.builtInStrides[static_cast<size_t>(a)], " on axis ", a, " but the tensor is ",
                    tensor.toString());
        }
      }
      FL_ASSERT(p.builtInSizes.empty() || p.builtInSizes == tensor.sizes(), what, ", kernel ",
                generated.name, ": parameter ", p.name, " was built for sizes ",
                listString(p.builtInSizes), " but the tensor is ", tensor.toString());
      launch.arguments.addTensor(tensor.data(), tensor.sizes(), tensor.strides());
    }
    if (generated.workspaceBytes > 0) {
      launch.workspace =
          std::make_shared<DeviceBuffer>(generated.workspaceBytes, device_, what + " workspace");
      // Kernels that leave their counters at zero need it zeroed only once.
      if (!generated.zeroWorkspaceEachLaunch) {
        launch.workspace->fill(0, what + " workspace");
      }
      launch.arguments.addPointer(launch.workspace->data());
    }
    plan_.launches.push_back(std::move(launch));
  }

  // Whether `group` may write its output aliasing `target` into it directly.
  bool writesInPlace(const segmenter::SegmentedGroup& group, const ir::Val* target,
                     const ir::ExpressionEvaluator& segmentEvaluator) const {
    for (const segmenter::SegmentedGroup& other : segmented_.groups()) {
      if (&other == &group) continue;
      if (std::find(other.inputs.begin(), other.inputs.end(), target) != other.inputs.end()) {
        return false;
      }
    }
    // A fusion output that is the input itself or a view of it (no group may
    // read it: the fusion may alias it without any segment) must keep the
    // input's old values: the write goes through a buffer, and that output is
    // copied first (plan()).
    if (hasOutputViewOf(segmented_.complete(), target)) return false;
    const auto read = std::find(group.inputs.begin(), group.inputs.end(), target);
    if (read == group.inputs.end()) return true;
    const ir::Fusion& segment = *group.segment;
    const ir::Val* input = segment.inputs().at(static_cast<size_t>(read - group.inputs.begin()));
    if (!readsOnlyInPlace(segment, input, group.choice.type)) return false;
    // Every thread of the kernel writes an element of the input's size: no
    // larger output makes other threads load it too.
    int64_t largest = 0;
    for (const auto& out : segment.outputs()) {
      if (const auto* tv = out.val->as<ir::TensorView>()) {
        int64_t count = 1;
        for (int64_t extent : extentsOf(*tv, segmentEvaluator)) count *= extent;
        largest = std::max(largest, count);
      }
    }
    return values_.at(target).tensor.numel() >= largest;
  }

  // Outputs: into the aliased input, else fresh, laid out as the complete
  // fusion's tensor asks (intermediates dense in allocation order, as the
  // compiler assumed).
  std::vector<DeviceTensor> allocateOutputs(const segmenter::SegmentedGroup& group,
                                            const ir::ExpressionEvaluator& segmentEvaluator) {
    const std::string what = segmentName(group);
    const ir::Fusion& segment = *group.segment;
    // An output aliasing an input is written in place only where no thread
    // and no other segment can read an element after it was updated
    // (in_place_writes.h); otherwise into a fresh buffer that is copied into
    // the input once every kernel has run.
    std::vector<bool> deferred(segment.outputs().size(), false);
    for (size_t j = 0; j < segment.outputs().size(); ++j) {
      const ir::Val* target = aliasTarget(group.outputs.at(j));
      if (target == nullptr) continue;
      deferred[j] = !writesInPlace(group, target, segmentEvaluator);
    }
    std::vector<DeviceTensor> outputs;
    for (size_t j = 0; j < segment.outputs().size(); ++j) {
      const ir::Val* value = group.outputs.at(j);
      const auto* tv = value->as<ir::TensorView>();
      const auto* segmentTv = segment.outputs()[j].val->as<ir::TensorView>();
      FL_ASSERT(tv != nullptr && segmentTv != nullptr, what, ": output ", value->name(),
                " is not a tensor");
      const ir::Val* target = aliasTarget(value);
      if (target != nullptr && !deferred[j]) {
        outputs.push_back(inputValues_.at(target));
      } else {
        const std::vector<int64_t> sizes = extentsOf(*segmentTv, segmentEvaluator);
        DeviceTensor fresh = allocateDevice(tv->dtype(), sizes, allocationStrides(*tv, sizes),
                                            device_, what + " output " + tv->name());
        plan_.freshBuffers.push_back(fresh.tensor);
        // Intermediates live as long as the run, not the planner.
        keepAlive_.push_back(fresh.buffer);
        outputs.push_back(fresh);
        // The input's own buffer: values_ of an input a segment passes on as
        // an output (an identity view) may name that output's copy.
        if (target != nullptr) deferredWrites_.push_back({fresh, inputValues_.at(target), what});
      }
      values_[value] = outputs.back();
    }
    return outputs;
  }

  // A matmul segment through cuBLASLt: one library call, planned (its
  // algorithm chosen) here; the report's segment properties name the algo.
  void planLibraryCall(const segmenter::SegmentedGroup& group,
                       const scheduler::MatmulParams& params) {
    const std::string what = segmentName(group);
    const ir::Fusion& segment = *group.segment;
    Arguments args = segmentArguments(group);
    ir::ExpressionEvaluator segmentEvaluator;
    describeInputs(segment, args, segmentEvaluator);
    for (Argument& arg : args) {  // CPU tensors (0-dim aside) go to the device
      auto* t = std::get_if<Tensor>(&arg);
      if (t == nullptr || !t->isCpu() || t->dim() == 0) continue;
      DeviceTensor copy = toDevice(*t, device_, what + " input");
      keepAlive_.push_back(copy.buffer);
      *t = copy.tensor;
    }
    std::vector<DeviceTensor> outputs = allocateOutputs(group, segmentEvaluator);
    FL_ASSERT(outputs.size() == 1, what, ": a cuBLASLt segment writes one tensor, not ",
              outputs.size());
    std::vector<PlannedLaunch> launches;
    try {
      const MatmulCall call = matmulCallFor(segment, params, args, outputs[0].tensor, what);
      const std::vector<MatmulCall> calls = splitOuterBatch(call);
      for (size_t i = 0; i < calls.size(); ++i) {
        PlannedLaunch launch;
        launch.what = calls.size() == 1 ? what
                                        : what + " (batch slice " + std::to_string(i + 1) + " of " +
                                              std::to_string(calls.size()) + ")";
        launch.library = std::make_shared<CublasLtMatmul>(calls[i], device_, what);
        launches.push_back(std::move(launch));
      }
    } catch (const UserError& error) {
      throw KernelUnavailable(error.message());
    }
    for (report::SegmentReport& segmentReport : signature_.compiled.report.segments) {
      if (segmentReport.id != group.id) continue;
      segmentReport.properties.set("algo", launches.front().library->algoDescription());
      segmentReport.properties.set("cublaslt_version", cublasLtVersionString());
      segmentReport.properties.set("cublaslt_calls", static_cast<int64_t>(launches.size()));
    }
    for (PlannedLaunch& launch : launches) plan_.launches.push_back(std::move(launch));
  }

  // Compiles (through the kernel cache) and loads `generated`.
  std::shared_ptr<CudaModule> loadModule(const codegen::GeneratedKernel& generated,
                                         const std::string& what) {
    // The same key the tuner's builder fills the cache under.
    const std::string key = kernelImageKey(generated, spec_, compiler_);
    std::shared_ptr<CudaModule>& module = modules_[key];
    if (!module) {
      const auto start = Clock::now();
      bool compiled = false;
      KernelImageLoads& images = plan_.images;
      const std::string image = cache_.getOrCompile(key, [&] {
        compiled = true;
        const auto compileStart = Clock::now();
        std::string built = compiler_.compile(generated, spec_);
        images.compilerMilliseconds += millisecondsSince(compileStart);
        return built;
      });
      module = std::make_shared<CudaModule>(image, what + ", kernel " + generated.name);
      (compiled ? images.compiled : images.fromCache) += 1;
      (compiled ? images.compileMilliseconds : images.cacheMilliseconds) +=
          millisecondsSince(start);
    }
    return module;
  }

  // A copy of `from` into a fresh tensor with `strides`, by a copy kernel;
  // `reason` goes to the run's report.
  DeviceTensor planCopy(const segmenter::SegmentedGroup& group, const DeviceTensor& from,
                        const std::vector<int64_t>& strides, const std::string& reason) {
    const std::string what = segmentName(group) + " copy";
    DeviceTensor to =
        allocateDevice(from.tensor.dtype(), from.tensor.sizes(), strides, device_, what);
    plan_.freshBuffers.push_back(to.tensor);
    plan_.copies.push_back(segmentName(group) + ": " + reason);
    planCopyInto(what, from, to);
    return to;
  }

  // A copy kernel's launch from `from` into `to` (same dtype and sizes).
  void planCopyInto(const std::string& what, const DeviceTensor& from, const DeviceTensor& to) {
    if (from.tensor.numel() == 0) return;
    const int64_t bytes = ir::sizeInBytes(from.tensor.dtype());
    const int rank = static_cast<int>(from.tensor.dim());
    const std::string key = "copy|" + std::to_string(bytes) + "|" + std::to_string(rank) + "|" +
                            std::to_string(from.tensor.numel());
    std::shared_ptr<GpuExecutor::LoadedKernel>& loaded = signature_.kernels[key];
    if (!loaded) {
      loaded = std::make_shared<GpuExecutor::LoadedKernel>();
      loaded->generated = stridedCopyKernel(bytes, rank, from.tensor.numel());
      loaded->module = loadModule(loaded->generated, what);
      loaded->kernel = loaded->module->kernel(loaded->generated.name, what);
      ++plan_.kernelsBuilt;
    }
    PlannedLaunch launch;
    launch.kernel = loaded;
    launch.what = what;
    launch.arguments.addTensor(from.tensor.data(), from.tensor.sizes(), from.tensor.strides());
    launch.arguments.addTensor(to.tensor.data(), to.tensor.sizes(), to.tensor.strides());
    keepAlive_.push_back(from.buffer);
    plan_.launches.push_back(std::move(launch));
  }

  // FUSERLAB_DUMP_CUDA=DIR writes each kernel the run builds, as it was
  // built for these inputs (their strides and alignment), to DIR/NAME.cu
  // (nvFuser's NVFUSER_DUMP=cuda_kernel; `compile --out` writes the kernels
  // for the inputs block's layout instead).
  static void dumpKernelSource(const codegen::GeneratedKernel& generated) {
    const char* dir = std::getenv("FUSERLAB_DUMP_CUDA");
    if (dir == nullptr || *dir == 0) return;
    std::ofstream out(std::string(dir) + "/" + generated.name + ".cu");
    out << generated.source;
    if (!out.good())
      std::fprintf(stderr, "FUSERLAB_DUMP_CUDA: cannot write %s/%s.cu\n", dir,
                   generated.name.c_str());
  }

  std::shared_ptr<GpuExecutor::LoadedKernel> buildKernel(
      const segmenter::SegmentedGroup& group, const scheduler::SegmentRuntimeInfo& info) {
    const std::string what = segmentName(group);
    // The name `fuserlab-cli compile` writes and the tuner times by.
    const std::string name = segmentKernelName(group.id, group.choice.type);
    auto loaded = std::make_shared<GpuExecutor::LoadedKernel>();
    try {
      loaded->generated = codegen::generateKernel(*group.segment, group.choice.type,
                                                  group.choice.params, info, name);
    } catch (const UserError& error) {
      throw KernelUnavailable(what + ": " + error.message());
    }
    const codegen::GeneratedKernel& generated = loaded->generated;
    dumpKernelSource(generated);
    loaded->module = loadModule(generated, what);
    std::shared_ptr<CudaModule>& module = loaded->module;
    loaded->kernel = module->kernel(generated.name, what);
    loaded->kernel.allowDynamicSharedMemory(generated.launch.dynamicSharedMemoryBytes, device_,
                                            what);
    loaded->kernel.allowClusters(generated.launch, device_, what);
    return loaded;
  }

  // A kernel-free segment: every tensor expr is a view of its input (or, for
  // no_op, an empty tensor).
  void planViews(const segmenter::SegmentedGroup& group) {
    const std::string what = segmentName(group);
    const ir::Fusion& segment = *group.segment;
    Arguments args = segmentArguments(group);
    ir::ExpressionEvaluator segmentEvaluator;
    bindInputs(segment, args, segmentEvaluator);
    std::unordered_map<const ir::Val*, DeviceTensor> local;
    for (size_t i = 0; i < segment.inputs().size(); ++i) {
      if (segment.inputs()[i]->isA<ir::TensorView>()) {
        local[segment.inputs()[i]] = values_.at(group.inputs[i]);
      }
    }
    for (const ir::Expr* expr : segment.exprsForOutputs()) {
      if (!producesTensor(*expr)) continue;  // scalars: the evaluator's
      if (isLibraryCall(expr->type())) {
        throw KernelUnavailable(what + ": " + expr->opName() +
                                " is a library call (cuBLASLt / cuDNN), which "
                                "this build does not have yet");
      }
      if (!isViewOp(expr->type())) {
        // no_op's computed outputs are empty: allocate them, nothing to do.
        for (const ir::Val* out : expr->outputs()) {
          const auto* tv = out->as<ir::TensorView>();
          if (tv == nullptr) continue;
          const std::vector<int64_t> sizes = extentsOf(*tv, segmentEvaluator);
          DeviceTensor empty = allocateDevice(tv->dtype(), sizes, Tensor::contiguousStrides(sizes),
                                              device_, what + " output " + tv->name());
          FL_ASSERT(empty.tensor.numel() == 0, what, ": ", expr->toString(),
                    " computes elements in a kernel-free segment");
          local[out] = empty;
        }
        continue;
      }
      const DeviceTensor& in = local.at(expr->input(0));
      local[expr->output(0)] = {viewOf(*expr, in.tensor, segmentEvaluator), in.buffer};
    }
    for (size_t j = 0; j < segment.outputs().size(); ++j) {
      const ir::Val* segmentValue = segment.outputs()[j].val;
      const ir::Val* value = group.outputs.at(j);
      const auto* tv = value->as<ir::TensorView>();
      if (tv == nullptr) continue;
      DeviceTensor view = local.at(segmentValue);
      std::string copyReason;
      if (value->isFusionOutput()) {
        if (auto mismatch = layoutMismatch(*tv, view.tensor)) copyReason = *mismatch;
      } else if (auto zero = strideZeroOnContiguousAxis(*tv, view.tensor)) {
        // Seed 203349 on an H200: refused when the next kernel bound it.
        copyReason = *zero;
      } else if (!isDenseInAllocationOrder(*tv, view.tensor) &&
                 (layoutMismatch(*tv, view.tensor) || !readOnlyByGeneratedCode(value))) {
        // A view that has the layout its tensor declares (mark_aliases_prepare
        // declares an input's meta chain as the view it is: sliced, permuted)
        // goes as it is to kernels, which are built for the strides they get,
        // and to kernel-free segments; a library call gets it dense.
        copyReason = tv->name() +
                     " is read by a later kernel, which expects it "
                     "dense in allocation order, but as a view it has sizes " +
                     listString(view.tensor.sizes()) + " and strides " +
                     listString(view.tensor.strides());
      }
      if (!copyReason.empty()) {
        view = planCopy(group, view, allocationStrides(*tv, view.tensor.sizes()),
                        "copy kernel for " + tv->name() + ": " + copyReason);
      }
      values_[value] = view;
    }
    ++plan_.hostSteps;
  }

  // Whether every segment reading `value` is a generated kernel or
  // kernel-free (no library call).
  bool readOnlyByGeneratedCode(const ir::Val* value) const {
    for (const segmenter::SegmentedGroup& group : segmented_.groups()) {
      if (std::find(group.inputs.begin(), group.inputs.end(), value) == group.inputs.end()) {
        continue;
      }
      const auto* matmul = std::get_if<scheduler::MatmulParams>(&group.choice.params);
      if (matmul != nullptr && matmul->backend == "cublaslt") return false;
    }
    return true;
  }

  GpuExecutor::Signature& signature_;
  const segmenter::SegmentedFusion& segmented_;
  const scheduler::DeviceSpec& spec_;
  int device_;
  bool checkParams_;
  KernelCache& cache_;
  const KernelCompiler& compiler_;
  std::map<std::string, std::shared_ptr<CudaModule>>& modules_;
  ir::ExpressionEvaluator evaluator_;
  // Looked up by value, never iterated.
  std::unordered_map<const ir::Val*, DeviceTensor> values_;
  // The fusion inputs' own tensors, which aliased outputs are written into.
  std::unordered_map<const ir::Val*, DeviceTensor> inputValues_;
  std::vector<std::shared_ptr<DeviceBuffer>> keepAlive_;
  // Aliased outputs written into fresh buffers, copied into their inputs
  // after the last kernel.
  struct DeferredWrite {
    DeviceTensor from;
    DeviceTensor into;
    std::string what;
  };
  std::vector<DeferredWrite> deferredWrites_;
  Plan plan_;

 public:
  //! Buffers of copied CPU inputs, kept for the run.
  std::vector<std::shared_ptr<DeviceBuffer>> takeKeepAlive() { return std::move(keepAlive_); }
};

}  // namespace

PlannedRun planRun(GpuExecutor::Signature& signature, const scheduler::DeviceSpec& spec, int device,
                   bool checkParams, KernelCache& cache, const KernelCompiler& compiler,
                   std::map<std::string, std::shared_ptr<CudaModule>>& modules,
                   const Arguments& inputs) {
  Planner planner(signature, spec, device, checkParams, cache, compiler, modules);
  PlannedRun run;
  run.plan = planner.plan(inputs);
  run.keepAlive = planner.takeKeepAlive();
  return run;
}

}  // namespace fuserlab::runtime
