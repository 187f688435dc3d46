#include "measure/cupti_timer.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include <cupti_activity.h>

#include "core/ir/error.h"

namespace fuserlab::tuner {
namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr size_t kAlign = 8;

struct Api {
  void* library = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) registerCallbacks = nullptr;
  decltype(&cuptiActivityFlushAll) flushAll = nullptr;
  decltype(&cuptiActivityGetNextRecord) nextRecord = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) push = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) pop = nullptr;
  decltype(&cuptiGetResultString) resultString = nullptr;
};

// Records as they complete: kernels by correlation id, and the external id
// each correlation id was launched under.
struct Collected {
  std::mutex mutex;
  struct Kernel {
    std::string name;
    uint64_t start = 0, end = 0;
  };
  //! By the correlation id of the launch: every kernel of a graph launch
  //! carries the cuGraphLaunch's, so one id can hold several kernels.
  std::multimap<uint32_t, Kernel> kernels;
  std::map<uint32_t, uint64_t> external;
};

Api& api() {
  static Api instance;
  return instance;
}
Collected& collected() {
  static Collected instance;
  return instance;
}

template <typename F>
bool load(void* library, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(library, name));
  return f != nullptr;
}

std::string openApi() {
  Api& a = api();
  if (a.library != nullptr) return {};
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("FUSERLAB_CUPTI_LIBRARY")) candidates.push_back(env);
  candidates.insert(candidates.end(), {"libcupti.so", "libcupti.so.13", "libcupti.so.12",
                                       "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                                       "/usr/local/cuda/lib64/libcupti.so"});
  std::string errors;
  for (const std::string& name : candidates) {
    a.library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (a.library != nullptr) break;
    const char* e = dlerror();
    errors += "\n  " + name + ": " + (e ? e : "not found");
  }
  if (a.library == nullptr) {
    return "libcupti could not be loaded (set FUSERLAB_CUPTI_LIBRARY):" + errors;
  }
  const bool ok = load(a.library, "cuptiActivityEnable", a.enable) &&
                  load(a.library, "cuptiActivityDisable", a.disable) &&
                  load(a.library, "cuptiActivityRegisterCallbacks", a.registerCallbacks) &&
                  load(a.library, "cuptiActivityFlushAll", a.flushAll) &&
                  load(a.library, "cuptiActivityGetNextRecord", a.nextRecord) &&
                  load(a.library, "cuptiActivityPushExternalCorrelationId", a.push) &&
                  load(a.library, "cuptiActivityPopExternalCorrelationId", a.pop) &&
                  load(a.library, "cuptiGetResultString", a.resultString);
  if (!ok) {
    dlclose(a.library);
    a = Api{};
    return "libcupti lacks the activity API functions this build expects";
  }
  return {};
}

std::string resultText(CUptiResult result) {
  const char* text = nullptr;
  if (api().resultString != nullptr) api().resultString(result, &text);
  return text != nullptr ? text : "CUPTI error " + std::to_string(int(result));
}

void check(CUptiResult result, const char* call) {
  FL_CHECK(result == CUPTI_SUCCESS, call, " failed: ", resultText(result));
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *size = kBufferBytes;
  *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
  Collected& c = collected();
  std::lock_guard<std::mutex> lock(c.mutex);
  CUpti_Activity* record = nullptr;
  while (api().nextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      c.kernels.emplace(k->correlationId,
                        Collected::Kernel{k->name ? k->name : "", k->start, k->end});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      c.external[e->correlationId] = e->externalId;
    }
  }
  std::free(buffer);
}

}  // namespace

std::unique_ptr<CuptiTimer> CuptiTimer::create(std::string* why) {
  if (std::string error = openApi(); !error.empty()) {
    if (why) *why = error;
    return nullptr;
  }
  Api& a = api();
  for (auto [result, what] : {std::pair{a.registerCallbacks(bufferRequested, bufferCompleted),
                                        "cuptiActivityRegisterCallbacks"},
                              std::pair{a.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                                        "cuptiActivityEnable(CONCURRENT_KERNEL)"},
                              std::pair{a.enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION),
                                        "cuptiActivityEnable(EXTERNAL_CORRELATION)"}}) {
    if (result != CUPTI_SUCCESS) {
      if (why) *why = std::string(what) + " failed: " + resultText(result);
      return nullptr;
    }
  }
  return std::unique_ptr<CuptiTimer>(new CuptiTimer());
}

CuptiTimer::~CuptiTimer() {
  Api& a = api();
  a.flushAll(1);
  a.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  a.disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
}

void CuptiTimer::beginSample(uint64_t id) {
  check(api().flushAll(1), "cuptiActivityFlushAll");
  {
    Collected& c = collected();
    std::lock_guard<std::mutex> lock(c.mutex);
    c.kernels.clear();
    c.external.clear();
  }
  current_ = id;
  check(api().push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id),
        "cuptiActivityPushExternalCorrelationId");
}

void CuptiTimer::endSample() {
  uint64_t last = 0;
  check(api().pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last),
        "cuptiActivityPopExternalCorrelationId");
}

std::vector<KernelRecord> CuptiTimer::collect() {
  check(api().flushAll(1), "cuptiActivityFlushAll");
  Collected& c = collected();
  std::lock_guard<std::mutex> lock(c.mutex);
  std::vector<KernelRecord> records;
  for (const auto& [correlation, kernel] : c.kernels) {
    auto ext = c.external.find(correlation);
    const bool correlated = ext != c.external.end();
    records.push_back(
        {kernel.name, correlated ? ext->second : current_, correlated, kernel.start, kernel.end});
  }
  c.kernels.clear();
  c.external.clear();
  return records;
}

}  // namespace fuserlab::tuner
