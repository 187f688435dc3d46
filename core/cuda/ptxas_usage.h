// PtxasUsage: what ptxas reports about one compiled kernel (registers per
// thread, spills, stack, static shared memory) when NVRTC runs it verbose
// (kPtxasVerboseOption). The numbers that explain a slow kernel before it
// runs: spills to local memory, or registers that cap occupancy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fuserlab::runtime {

//! The NVRTC option that makes ptxas print its resource usage into the log.
inline constexpr std::string_view kPtxasVerboseOption = "--ptxas-options=-v";

struct PtxasUsage {
  int64_t registers = 0;        //!< per thread
  int64_t spillStoreBytes = 0;  //!< per thread, to local memory
  int64_t spillLoadBytes = 0;
  int64_t stackFrameBytes = 0;
  int64_t sharedMemoryBytes = 0;  //!< static (__shared__) only
  int64_t barriers = 0;

  //! "40 registers, 0 bytes spill stores, 0 bytes spill loads, ..."
  std::string toString() const;
};

//! The usage ptxas reported for entry `kernelName` in NVRTC's `log`, or
//! nullopt when the log has no report for it (not compiled verbose).
std::optional<PtxasUsage> parsePtxasUsage(const std::string& log, const std::string& kernelName);

//! `log` without ptxas's "info" lines (and the property lines under them):
//! what is left are NVRTC's warnings.
std::string withoutPtxasInfo(const std::string& log);

}  // namespace fuserlab::runtime
