#include "core/cuda/kernel_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

#include "core/ir/bounded_file.h"
#include "core/ir/error.h"
#include "core/ir/fnv1a.h"

namespace fuserlab::runtime {
namespace {

constexpr char kMagic[8] = {'F', 'L', 'K', 'E', 'R', 'N', 'E', 'L'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kKeyLength = 32;
// magic, version, key length, key, payload length, checksum
constexpr size_t kHeaderBytes = 8 + 4 + 4 + kKeyLength + 8 + 8;
// The largest entry read back: kernel images are kilobytes to a few
// megabytes; anything larger at an entry's path is not one of ours.
constexpr uint64_t kMaxEntryBytes = uint64_t{64} << 20;

using Uint128 = unsigned __int128;

class Fnv128 {
 public:
  void add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      state_ ^= c;
      state_ *= prime();
    }
  }
  //! A field with its length first, so ("ab", "c") and ("a", "bc") differ.
  void addField(std::string_view bytes) {
    const uint64_t length = bytes.size();
    char buffer[8];
    std::memcpy(buffer, &length, 8);
    add(std::string_view(buffer, 8));
    add(bytes);
  }
  std::string hex() const {
    static const char* digits = "0123456789abcdef";
    std::string out(kKeyLength, '0');
    Uint128 v = state_;
    for (size_t i = kKeyLength; i-- > 0;) {
      out[i] = digits[static_cast<unsigned>(v & 0xf)];
      v >>= 4;
    }
    return out;
  }

 private:
  static Uint128 prime() { return (Uint128(1) << 88) + 0x13b; }
  Uint128 state_ = (Uint128(0x6c62272e07bb0142ULL) << 64) | 0x62b821756295c58dULL;
};

uint64_t checksum(std::string_view bytes) { return ir::fnv1a64(bytes); }

template <class T>
void append(std::string& out, T value) {
  char buffer[sizeof(T)];
  std::memcpy(buffer, &value, sizeof(T));
  out.append(buffer, sizeof(T));
}

template <class T>
T readAt(const std::string& data, size_t offset) {
  T value;
  std::memcpy(&value, data.data() + offset, sizeof(T));
  return value;
}

std::string envValue(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

std::string kernelCacheKey(std::string_view source, const std::vector<std::string>& options,
                           std::string_view arch, std::string_view compilerVersion) {
  Fnv128 hash;
  hash.addField("fuserlab kernel v1");
  hash.addField(source);
  hash.addField(std::to_string(options.size()));
  for (const auto& option : options) hash.addField(option);
  hash.addField(arch);
  hash.addField(compilerVersion);
  return hash.hex();
}

std::filesystem::path defaultCacheDirectory() {
  if (auto dir = envValue("FUSERLAB_CACHE_DIR"); !dir.empty()) return dir;
  if (auto xdg = envValue("XDG_CACHE_HOME"); !xdg.empty()) {
    return std::filesystem::path(xdg) / "fuserlab";
  }
  if (auto home = envValue("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".cache" / "fuserlab";
  }
  return {};
}

KernelCache::KernelCache(std::filesystem::path directory) : directory_(std::move(directory)) {}

KernelCache& KernelCache::global() {
  static KernelCache cache(defaultCacheDirectory());
  return cache;
}

std::filesystem::path KernelCache::entryPath(const std::string& key) const {
  if (directory_.empty()) return {};
  return directory_ / (key + ".kernel");
}

std::optional<std::string> KernelCache::lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = memory_.find(key); it != memory_.end()) {
    ++stats_.memoryHits;
    return it->second;
  }
  std::optional<std::string> payload = readEntry(key);
  if (!payload) return std::nullopt;
  ++stats_.diskHits;
  memory_.emplace(key, *payload);
  return payload;
}

void KernelCache::store(const std::string& key, std::string_view payload) {
  std::lock_guard<std::mutex> lock(mutex_);
  memory_[key] = std::string(payload);
  writeEntry(key, payload);
}

std::string KernelCache::getOrCompile(const std::string& key,
                                      const std::function<std::string()>& compile) {
  if (auto hit = lookup(key)) return *hit;
  // Compiled outside the lock: two threads may both compile a new key, and
  // the second store rewrites the same bytes.
  std::string payload = compile();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.compiles;
  }
  store(key, payload);
  return payload;
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::string KernelCache::lastWriteError() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lastWriteError_;
}

std::optional<std::string> KernelCache::readEntry(const std::string& key) {
  const std::filesystem::path path = entryPath(key);
  if (path.empty()) return std::nullopt;
  auto reject = [&]() -> std::optional<std::string> {
    ++stats_.rejectedEntries;
    return std::nullopt;
  };
  // Only a regular file (not through a symlink) of a kernel's size: a named
  // pipe would block the lookup, a link to /dev/zero would read until memory
  // runs out, a directory is no entry. Each is a miss; the store after the
  // compile replaces it.
  ir::BoundedRead read =
      ir::readBoundedFile(path.string(), kMaxEntryBytes, /*followSymlinks=*/false);
  if (read.problem == ir::FileProblem::Missing) return std::nullopt;  // a plain miss
  if (read.problem != ir::FileProblem::None) return reject();
  const std::string data = std::move(read.bytes);
  if (data.size() < kHeaderBytes || std::memcmp(data.data(), kMagic, 8) != 0) {
    return reject();
  }
  size_t at = 8;
  if (readAt<uint32_t>(data, at) != kFormatVersion) return reject();
  at += 4;
  if (readAt<uint32_t>(data, at) != kKeyLength) return reject();
  at += 4;
  if (data.compare(at, kKeyLength, key) != 0) return reject();  // foreign
  at += kKeyLength;
  const uint64_t length = readAt<uint64_t>(data, at);
  at += 8;
  const uint64_t expected = readAt<uint64_t>(data, at);
  at += 8;
  if (data.size() - at != length) return reject();
  std::string payload = data.substr(at);
  if (checksum(payload) != expected) return reject();
  return payload;
}

void KernelCache::writeEntry(const std::string& key, std::string_view payload) {
  const std::filesystem::path path = entryPath(key);
  if (path.empty()) return;
  FL_ASSERT(key.size() == kKeyLength, "a kernel cache key of ", key.size(),
            " characters (kernelCacheKey gives ", kKeyLength, ")");
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path temp = path;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  auto fail = [&](const std::string& why) {
    ++stats_.writeFailures;
    lastWriteError_ = "cannot write kernel cache entry " + path.string() + ": " + why;
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
  };
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error) return fail(error.message());

  std::string header(kMagic, 8);
  append<uint32_t>(header, kFormatVersion);
  append<uint32_t>(header, static_cast<uint32_t>(kKeyLength));
  header += key;
  append<uint64_t>(header, payload.size());
  append<uint64_t>(header, checksum(payload));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.close();
    if (!out) return fail("write failed");
  }
  std::filesystem::rename(temp, path, error);
  if (error) return fail(error.message());
}

}  // namespace fuserlab::runtime
