// Running a fusion from host tensors (gpu_executor.h: toDeviceArguments,
// runOnGpu): inputs copied to the device, except CPU scalars, which kernels
// take by value; outputs and inputs written in place copied back.
#include <algorithm>

#include "core/cuda/cuda_memory.h"
#include "core/ir/error.h"
#include "core/runtime/gpu_executor.h"

namespace fuserlab::runtime {

DeviceArguments toDeviceArguments(const Arguments& inputs, int device, const ir::Fusion* fusion) {
  DeviceArguments d;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto* t = std::get_if<Tensor>(&inputs[i]);
    bool cpuScalar = t != nullptr && t->isCpu() && t->dim() == 0;
    if (cpuScalar && fusion != nullptr && i < fusion->inputs().size()) {
      const auto* tv = fusion->inputs()[i]->as<ir::TensorView>();
      cpuScalar = tv == nullptr || tv->isCpuScalar();
    }
    if (t == nullptr || cpuScalar) {
      d.arguments.push_back(inputs[i]);  // scalars stay on the host
      continue;
    }
    d.keep.push_back(t->isCpu() ? toDevice(*t, device, "input " + std::to_string(i))
                                : DeviceTensor{*t, nullptr});
    d.arguments.emplace_back(d.keep.back().tensor);
  }
  return d;
}

HostRunResult runOnGpu(GpuExecutor& executor, const Arguments& inputs,
                       const GpuRunOptions& options) {
  const DeviceArguments device = toDeviceArguments(inputs, executor.device(), &executor.fusion());
  GpuRunResult run = executor.run(device.arguments, options);
  HostRunResult result;
  result.stats = run.stats;
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    result.outputs.push_back(toHost(run.outputs[i].tensor, "output " + std::to_string(i)));
  }
  // Inputs an output aliases were written on the device: copy them back.
  const ir::Fusion& fusion = executor.fusion();
  for (const ir::FusionOutput& output : fusion.outputs()) {
    if (output.aliasOf == nullptr) continue;
    const auto& fusionInputs = fusion.inputs();
    const size_t i =
        std::find(fusionInputs.begin(), fusionInputs.end(), output.aliasOf) - fusionInputs.begin();
    FL_ASSERT(i < inputs.size(), "alias of ", output.aliasOf->name(), " is no fusion input");
    const auto* host = std::get_if<Tensor>(&inputs[i]);
    const auto* onDevice = std::get_if<Tensor>(&device.arguments[i]);
    if (host == nullptr || onDevice == nullptr || !host->isCpu() || onDevice->isCpu()) {
      continue;
    }
    Tensor target = *host;
    copyToHost(*onDevice, target, "input " + output.aliasOf->name());
  }
  return result;
}

}  // namespace fuserlab::runtime
