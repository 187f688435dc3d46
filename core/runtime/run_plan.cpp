#include "core/runtime/run_plan.h"

#include <array>
#include <map>

#include "core/ir/error.h"
#include "core/runtime/cublaslt_matmul.h"
#include "core/runtime/plan_graph.h"

namespace fuserlab::runtime {
namespace {

int64_t spanBytes(const Tensor& t) {
  return spanElements(t.sizes(), t.strides()) * ir::sizeInBytes(t.dtype());
}

struct Region {
  const char* start = nullptr;
  const char* end = nullptr;
};

}  // namespace

std::unique_ptr<ReplayPlan> ReplayPlan::capture(
    const Plan& plan, const Arguments& inputs,
    const std::vector<std::shared_ptr<DeviceBuffer>>& buffers, std::string* why) {
  auto fail = [why](std::string reason) -> std::unique_ptr<ReplayPlan> {
    if (why) *why = std::move(reason);
    return nullptr;
  };
  auto replay = std::unique_ptr<ReplayPlan>(new ReplayPlan());
  std::vector<Region> regions;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto* t = std::get_if<Tensor>(&inputs[i]);
    if (t == nullptr || t->isCpu()) continue;
    const char* start = static_cast<const char*>(t->data());
    const Region r{start, start + spanBytes(*t)};
    for (const Region& other : regions) {
      if (r.start < other.end && other.start < r.end) return fail("inputs overlap");
    }
    regions.push_back(r);
    replay->inputIndex_.push_back(i);
  }
  // Buffers: the planner's, the outputs' and the workspaces', each once.
  // A workspace is kept (the same buffer for every replay): it is the
  // kernel's alone for the run, and one zeroed once (a semaphore the last
  // block resets) must not be swapped for a pool block holding other data.
  std::map<const DeviceBuffer*, int> bufferRegion;
  auto addBuffer = [&](const std::shared_ptr<DeviceBuffer>& b, bool keep) {
    if (!b || bufferRegion.count(b.get())) return;
    bufferRegion[b.get()] = static_cast<int>(regions.size());
    const char* start = static_cast<const char*>(b->data());
    regions.push_back({start, start + b->bytes()});
    replay->bufferBytes_.push_back(b->bytes());
    replay->kept_.push_back(keep ? b : nullptr);
  };
  for (const PlannedLaunch& launch : plan.launches) addBuffer(launch.workspace, true);
  for (const auto& b : buffers) addBuffer(b, false);
  for (const DeviceTensor& out : plan.outputs) addBuffer(out.buffer, false);

  auto locate = [&](const void* pointer, int& region, int64_t& offset) {
    region = -1;
    offset = 0;
    if (pointer == nullptr) return true;
    const char* p = static_cast<const char*>(pointer);
    for (size_t r = 0; r < regions.size(); ++r) {
      if ((p >= regions[r].start && p < regions[r].end) || p == regions[r].start) {
        region = static_cast<int>(r);
        offset = p - regions[r].start;
        return true;
      }
    }
    return false;
  };

  replay->plan_ = plan;
  replay->plan_.kernelsBuilt = 0;  // a replay builds nothing
  replay->plan_.images = KernelImageLoads{};
  for (size_t l = 0; l < plan.launches.size(); ++l) {
    const PlannedLaunch& launch = plan.launches[l];
    if (launch.library) {
      const std::array<const void*, 4> pointers = launch.library->pointers();
      for (size_t p = 0; p < pointers.size(); ++p) {
        LibrarySlot slot{l, p};
        if (!locate(pointers[p], slot.region, slot.offset)) {
          return fail(launch.what + ": library pointer " + std::to_string(p) +
                      " points into no input and no planned buffer");
        }
        replay->librarySlots_.push_back(slot);
      }
      continue;
    }
    if (launch.workspace) {
      replay->workspaces_.push_back({l, bufferRegion.at(launch.workspace.get())});
    }
    for (size_t a = 0; a < launch.arguments.size(); ++a) {
      if (!launch.arguments.holdsPointer(a)) continue;
      Slot slot{l, a};
      if (!locate(launch.arguments.pointerAt(a), slot.region, slot.offset)) {
        return fail(launch.what + ": argument " + std::to_string(a) +
                    " points into no input and no planned buffer");
      }
      replay->slots_.push_back(slot);
    }
  }
  auto traceTensor = [&](const Tensor& t, TensorSlot& slot) {
    slot.layout = t;
    if (t.isCpu()) {
      slot.host = true;
      return true;
    }
    return locate(t.data(), slot.region, slot.offset);
  };
  for (const DeviceTensor& out : plan.outputs) {
    TensorSlot slot;
    if (!traceTensor(out.tensor, slot)) return fail("an output points into no known buffer");
    replay->outputs_.push_back(std::move(slot));
  }
  for (const Tensor& fresh : plan.freshBuffers) {
    TensorSlot slot;
    if (!traceTensor(fresh, slot)) return fail("a fresh tensor points into no known buffer");
    replay->fresh_.push_back(std::move(slot));
  }
  replay->release();
  return replay;
}

char* ReplayPlan::base(const Arguments& inputs, int region) const {
  const size_t inputRegions = inputIndex_.size();
  if (static_cast<size_t>(region) < inputRegions) {
    return static_cast<char*>(std::get<Tensor>(inputs[inputIndex_[region]]).data());
  }
  return static_cast<char*>(bound_[region - inputRegions]->data());
}

Plan& ReplayPlan::bind(const Arguments& inputs, int device, bool freshTensors) {
  // Taken last region first: release() and a caller dropping the outputs
  // free them first region first, and the pool hands back a size class's
  // blocks last freed first, so a loop that drops each run's outputs gets
  // the same blocks every run (and a CUDA graph of the plan, PlanGraph,
  // needs no node re-pointed).
  bound_.assign(bufferBytes_.size(), nullptr);
  for (size_t i = bufferBytes_.size(); i-- > 0;) {
    bound_[i] = kept_[i] ? kept_[i]
                         : std::make_shared<DeviceBuffer>(bufferBytes_[i], device,
                                                          "a replayed run's buffer");
  }
  for (const Slot& s : slots_) {
    plan_.launches[s.launch].arguments.setPointer(
        s.argument, s.region < 0 ? nullptr : base(inputs, s.region) + s.offset);
  }
  for (size_t i = 0; i < librarySlots_.size();) {
    // A library call's slots are consecutive, in pointers() order.
    const size_t launch = librarySlots_[i].launch;
    std::array<const void*, 4> pointers{};
    for (; i < librarySlots_.size() && librarySlots_[i].launch == launch; ++i) {
      const LibrarySlot& s = librarySlots_[i];
      pointers[s.pointer] = s.region < 0 ? nullptr : base(inputs, s.region) + s.offset;
    }
    plan_.launches[launch].library->setPointers(pointers);
  }
  const size_t inputRegions = inputIndex_.size();
  for (const auto& [launch, region] : workspaces_) {
    plan_.launches[launch].workspace = bound_[region - inputRegions];
  }
  if (freshTensors) {
    for (size_t i = 0; i < fresh_.size(); ++i) {
      plan_.freshBuffers[i] = rebind(inputs, fresh_[i], device).tensor;
    }
  }
  return plan_;
}

DeviceTensor ReplayPlan::rebind(const Arguments& inputs, const TensorSlot& slot, int device) const {
  DeviceTensor out;
  if (slot.host) {
    out.tensor = slot.layout;
    return out;
  }
  const size_t inputRegions = inputIndex_.size();
  char* data = slot.region < 0 ? nullptr : base(inputs, slot.region) + slot.offset;
  out.tensor = Tensor::borrow(data, slot.layout.dtype(), slot.layout.sizes(), slot.layout.strides(),
                              0, DeviceKind::Cuda, device);
  if (slot.region >= static_cast<int>(inputRegions)) {
    out.buffer = bound_[slot.region - inputRegions];
  }
  return out;
}

void ReplayPlan::bindOutputs(const Arguments& inputs, int device) {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    plan_.outputs[i] = rebind(inputs, outputs_[i], device);
  }
}

void ReplayPlan::release() {
  bound_.clear();
  for (DeviceTensor& out : plan_.outputs) out.buffer.reset();
  for (PlannedLaunch& launch : plan_.launches) launch.workspace.reset();
}

namespace {

std::string& labelOf(PlannedLaunch& launch) {
  if (launch.label.empty()) {
    launch.label = launch.library ? launch.what + ", cuBLASLt call"
                                  : launch.what + ", kernel " + launch.kernel->generated.name;
  }
  return launch.label;
}

}  // namespace

void executePlan(Plan& plan, const GpuRunOptions& options, GpuRunStats& stats, PlanGraph* graph) {
  if (options.poisonOutputs) {
    for (const Tensor& fresh : plan.freshBuffers) poison(fresh, "poisoning outputs");
  }
  if (options.beforeLaunches) options.beforeLaunches();
  const bool graphed = graph != nullptr && graph->launch(plan, &stats.graphNodesReset);
  if (graphed) {
    stats.graphLaunch = true;
    stats.dependentLaunches = graph->dependentLaunches();
    for (size_t index = 0; index < plan.launches.size(); ++index) {
      ++stats.kernelLaunches;
      if (plan.launches[index].library) ++stats.libraryCalls;
      if (options.afterLaunch) options.afterLaunch(index, labelOf(plan.launches[index]));
    }
  }
  for (size_t index = 0; !graphed && index < plan.launches.size(); ++index) {
    PlannedLaunch& launch = plan.launches[index];
    if (launch.library) {
      launch.library->run();
      ++stats.libraryCalls;
    } else {
      const codegen::GeneratedKernel& generated = launch.kernel->generated;
      const bool zeroWorkspace = launch.workspace && generated.zeroWorkspaceEachLaunch;
      if (zeroWorkspace) launch.workspace->fill(0, launch.what + " workspace");
      // The first launch follows whatever the caller queued; a memset
      // between two kernels is no kernel to depend on.
      const bool afterKernel =
          plan.programmaticLaunches && index > 0 && !zeroWorkspace && generated.waitsForPriorGrids;
      launch.kernel->kernel.launch(generated.launch, launch.arguments.pointers(), launch.what,
                                   afterKernel);
      if (afterKernel) ++stats.dependentLaunches;
    }
    ++stats.kernelLaunches;
    if (options.afterLaunch) options.afterLaunch(index, labelOf(launch));
    if (options.synchronizeEachKernel) synchronizeCuda(launch.label);
  }
  if (options.synchronize) synchronizeCuda("running the fusion's kernels");
  stats.hostSteps = plan.hostSteps;
  stats.kernelsBuilt = plan.kernelsBuilt;
  stats.images = plan.images;
  stats.copies = plan.copies;
}

}  // namespace fuserlab::runtime
