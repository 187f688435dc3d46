// CUDA devices of this machine, read through the CUDA runtime API (linked
// statically, so every binary starts without a driver), and the --device
// argument every compiling command takes: "cuda:N" for GPU N of this
// machine, or a built-in device of core/scheduler/device_spec.h ("h100") so
// a machine without a GPU can compile for one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/scheduler/device_spec.h"

namespace fuserlab::runtime {

//! The number of CUDA devices; 0 without a driver or a GPU (never an error).
int cudaDeviceCount();

//! Why cudaDeviceCount() is 0 ("cudaGetDeviceCount: CUDA driver version is
//! insufficient for CUDA runtime version"); empty when there are GPUs.
std::string cudaUnavailableReason();

//! The properties of GPU `index` as a DeviceSpec (key "cuda:N",
//! fromHardware); nullopt if there is no such device.
std::optional<scheduler::DeviceSpec> queryCudaDevice(int index);

//! The device a --device argument names: "cuda:N" (or "cuda", GPU 0) queries
//! GPU N, anything else is looked up in the built-in table. A UserError if
//! there is no such GPU or name (listing the built-in keys); nullopt for an
//! empty argument, meaning "not given" (use scheduler::defaultDevice()).
std::optional<scheduler::DeviceSpec> resolveDevice(std::string_view nameOrCudaIndex);

}  // namespace fuserlab::runtime
