// A caching allocator for device memory: blocks a DeviceBuffer frees go back
// to a per-device free list and are handed out again for the same rounded
// size, so a cached run allocates its outputs and intermediates without
// cudaMalloc, and frees them without cudaFree (which synchronizes the device).
//
// Every launch FuserLab makes goes to the legacy default stream, so a block
// freed while a queued kernel still reads it is only reused by work queued
// after that kernel: stream order keeps it safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace fuserlab::runtime {

//! `bytes` (> 0) of memory on `device`, 256-byte aligned, from the free list
//! when a block of the same rounded size is there, else from cudaMalloc
//! (after trimming the cache once if cudaMalloc runs out). `what` names the
//! allocation in errors.
void* poolAllocate(int device, int64_t bytes, std::string_view what);

//! Gives back a block poolAllocate returned for `bytes` on `device`. Blocks
//! beyond the cache limit (4 GiB per device) are freed.
void poolRelease(int device, void* data, int64_t bytes) noexcept;

//! The size class `bytes` is rounded up to (512 bytes below 1 MiB, then
//! 128 KiB); exposed for tests.
int64_t poolRoundedBytes(int64_t bytes);

}  // namespace fuserlab::runtime
