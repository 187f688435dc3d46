#include "core/runtime/nccl_communicator.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <glob.h>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/cuda/cuda_error.h"
#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

// The NCCL entry points this file calls, from the dlopen'ed library.
struct Api {
  void* library = nullptr;
  std::string error;
  ncclResult_t (*getUniqueId)(ncclUniqueId*) = nullptr;
  ncclResult_t (*commInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
  ncclResult_t (*commDestroy)(ncclComm_t) = nullptr;
  ncclResult_t (*commAbort)(ncclComm_t) = nullptr;
  const char* (*getErrorString)(ncclResult_t) = nullptr;
  ncclResult_t (*allGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                            cudaStream_t) = nullptr;
  ncclResult_t (*reduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                cudaStream_t) = nullptr;
  ncclResult_t (*broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t,
                            cudaStream_t) = nullptr;
};

template <class F>
bool load(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  return f != nullptr;
}

std::vector<std::string> candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("FUSERLAB_NCCL_LIBRARY")) out.push_back(env);
  out.insert(out.end(), {"libnccl.so.2", "libnccl.so", "/usr/local/cuda/lib64/libnccl.so.2",
                         "/usr/lib/x86_64-linux-gnu/libnccl.so.2"});
  // PyTorch's wheel (nvidia-nccl-cu*): site-packages/nvidia/nccl/lib.
  for (const char* pattern : {"/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2",
                              "/usr/local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2",
                              "/usr/lib/python3/dist-packages/nvidia/nccl/lib/libnccl.so.2",
                              "/opt/*/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2"}) {
    glob_t found{};
    if (glob(pattern, 0, nullptr, &found) == 0) {
      for (size_t i = 0; i < found.gl_pathc; ++i) out.push_back(found.gl_pathv[i]);
    }
    globfree(&found);
  }
  return out;
}

Api& api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string errors;
    for (const std::string& name : candidates()) {
      a.library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (a.library != nullptr) break;
      const char* e = dlerror();
      errors += "\n  " + name + ": " + (e ? e : "not found");
    }
    if (a.library == nullptr) {
      a.error = "libnccl could not be loaded (set FUSERLAB_NCCL_LIBRARY):" + errors;
      return;
    }
    const bool ok = load(a.library, "ncclGetUniqueId", a.getUniqueId) &&
                    load(a.library, "ncclCommInitRank", a.commInitRank) &&
                    load(a.library, "ncclCommDestroy", a.commDestroy) &&
                    load(a.library, "ncclCommAbort", a.commAbort) &&
                    load(a.library, "ncclGetErrorString", a.getErrorString) &&
                    load(a.library, "ncclAllGather", a.allGather) &&
                    load(a.library, "ncclAllReduce", a.allReduce) &&
                    load(a.library, "ncclReduceScatter", a.reduceScatter) &&
                    load(a.library, "ncclBroadcast", a.broadcast);
    if (!ok) a.error = "libnccl lacks the collectives this build calls";
  });
  return a;
}

Api& loadedApi() {
  Api& a = api();
  FL_CHECK(a.error.empty(), a.error);
  return a;
}

void check(ncclResult_t result, const char* call) {
  if (result == ncclSuccess) return;
  const char* text = api().getErrorString ? api().getErrorString(result) : nullptr;
  FL_USER_ERROR(call, " failed: ", text ? text : "NCCL error", " (ncclResult_t ",
                static_cast<int>(result), ")");
}

ncclDataType_t ncclType(ir::DataType dtype) {
  switch (dtype) {
    case ir::DataType::Float: return ncclFloat32;
    case ir::DataType::Double: return ncclFloat64;
    case ir::DataType::Half: return ncclFloat16;
    case ir::DataType::BFloat16: return ncclBfloat16;
    case ir::DataType::Int32: return ncclInt32;
    case ir::DataType::Int: return ncclInt64;
    default: FL_USER_ERROR("NCCL cannot sum ", ir::toString(dtype), " tensors");
  }
}

}  // namespace

std::string ncclUnavailableReason() { return api().error; }

NcclId ncclNewId() {
  ncclUniqueId raw;
  check(loadedApi().getUniqueId(&raw), "ncclGetUniqueId");
  NcclId id;
  std::memcpy(id.data(), raw.internal, id.size());
  return id;
}

std::string ncclIdToHex(const NcclId& id) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (char c : id) {
    const auto byte = static_cast<unsigned char>(c);
    out += digits[byte >> 4];
    out += digits[byte & 15];
  }
  return out;
}

NcclId ncclIdFromHex(const std::string& hex) {
  FL_CHECK(hex.size() == 256, "an NCCL id is 256 hex digits, found ", hex.size(), " characters");
  auto value = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    FL_USER_ERROR("an NCCL id is hex digits; found '", std::string(1, c), "'");
  };
  NcclId id;
  for (size_t i = 0; i < id.size(); ++i) {
    id[i] = static_cast<char>(value(hex[2 * i]) * 16 + value(hex[2 * i + 1]));
  }
  return id;
}

struct NcclCommunicator::State {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
  size_t capacity = 0;
  int device = 0;

  // Device staging buffers of at least `bytes` each.
  void reserve(size_t bytes) {
    if (bytes <= capacity) return;
    if (send) cudaFree(send);
    if (recv) cudaFree(recv);
    send = recv = nullptr;
    checkCuda(cudaMalloc(&send, bytes), "cudaMalloc", "NCCL send buffer");
    checkCuda(cudaMalloc(&recv, bytes), "cudaMalloc", "NCCL receive buffer");
    capacity = bytes;
  }
  void toDevice(const void* host, size_t bytes) {
    checkCuda(cudaMemcpyAsync(send, host, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync",
              "NCCL send buffer");
  }
  void toHost(void* host, size_t bytes) {
    checkCuda(cudaMemcpyAsync(host, recv, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync",
              "NCCL receive buffer");
    checkCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize", "NCCL collective");
  }
};

NcclCommunicator::NcclCommunicator(const NcclId& id, int64_t size, int64_t rank, int device)
    : state_(std::make_unique<State>()), size_(size), rank_(rank) {
  Api& a = loadedApi();
  state_->device = device;
  checkCuda(cudaSetDevice(device), "cudaSetDevice", "NCCL rank");
  checkCuda(cudaStreamCreateWithFlags(&state_->stream, cudaStreamNonBlocking),
            "cudaStreamCreateWithFlags", "NCCL stream");
  ncclUniqueId raw;
  std::memcpy(raw.internal, id.data(), id.size());
  check(a.commInitRank(&state_->comm, static_cast<int>(size), raw, static_cast<int>(rank)),
        "ncclCommInitRank");
}

NcclCommunicator::~NcclCommunicator() {
  if (state_->comm) api().commDestroy(state_->comm);
  if (state_->send) cudaFree(state_->send);
  if (state_->recv) cudaFree(state_->recv);
  if (state_->stream) cudaStreamDestroy(state_->stream);
}

void NcclCommunicator::allgather(const void* send, void* recv, size_t bytes) {
  const size_t total = bytes * static_cast<size_t>(size_);
  state_->reserve(total);
  state_->toDevice(send, bytes);
  check(loadedApi().allGather(state_->send, state_->recv, bytes, ncclInt8, state_->comm,
                              state_->stream),
        "ncclAllGather");
  state_->toHost(recv, total);
}

void NcclCommunicator::allreduce(const void* send, void* recv, size_t count, ir::DataType dtype) {
  const size_t bytes = count * static_cast<size_t>(ir::sizeInBytes(dtype));
  state_->reserve(bytes);
  state_->toDevice(send, bytes);
  check(loadedApi().allReduce(state_->send, state_->recv, count, ncclType(dtype), ncclSum,
                              state_->comm, state_->stream),
        "ncclAllReduce");
  state_->toHost(recv, bytes);
}

void NcclCommunicator::reduceScatter(const void* send, void* recv, size_t count,
                                     ir::DataType dtype) {
  const size_t bytes = count * static_cast<size_t>(ir::sizeInBytes(dtype));
  state_->reserve(bytes * static_cast<size_t>(size_));
  state_->toDevice(send, bytes * static_cast<size_t>(size_));
  check(loadedApi().reduceScatter(state_->send, state_->recv, count, ncclType(dtype), ncclSum,
                                  state_->comm, state_->stream),
        "ncclReduceScatter");
  state_->toHost(recv, bytes);
}

void NcclCommunicator::broadcast(void* buffer, size_t bytes, int64_t root) {
  state_->reserve(bytes);
  state_->toDevice(buffer, bytes);
  check(loadedApi().broadcast(state_->send, state_->recv, bytes, ncclInt8, static_cast<int>(root),
                              state_->comm, state_->stream),
        "ncclBroadcast");
  state_->toHost(buffer, bytes);
}

void NcclCommunicator::abort(const std::string& why) {
  if (state_->comm) {
    api().commAbort(state_->comm);
    state_->comm = nullptr;
  }
}

}  // namespace fuserlab::runtime
