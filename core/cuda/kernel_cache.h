// KernelCache: compiled kernel images kept in memory and on disk, so a
// kernel is compiled once per (source, options, architecture, compiler
// version) and machine rather than once per process.
//
// The key is a 128-bit FNV-1a digest of those four, each length-prefixed.
// On disk each entry is one file, <directory>/<key>.kernel, written to a
// temporary file and renamed into place (readers never see half an entry),
// with a header: magic "FLKERNEL", format version, the key, the payload's
// length and its FNV-1a 64 checksum. An entry whose header, key, length or
// checksum does not match is ignored and rebuilt, never trusted; so is
// anything at an entry's path that is not a regular file of at most 64 MiB
// (a named pipe, a symlink, a directory: never followed, never waited on);
// a cache directory that cannot be written makes the cache memory-only,
// never an error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fuserlab::runtime {

//! The cache key of a kernel: 32 hex digits.
std::string kernelCacheKey(std::string_view source, const std::vector<std::string>& options,
                           std::string_view arch, std::string_view compilerVersion);

//! $FUSERLAB_CACHE_DIR, else $XDG_CACHE_HOME/fuserlab, else
//! $HOME/.cache/fuserlab; empty if none of them is set.
std::filesystem::path defaultCacheDirectory();

struct KernelCacheStats {
  int64_t memoryHits = 0;
  int64_t diskHits = 0;
  int64_t compiles = 0;
  //! Disk entries ignored as corrupt or foreign (and then rebuilt).
  int64_t rejectedEntries = 0;
  int64_t writeFailures = 0;
};

class KernelCache {
 public:
  //! A cache over `directory` (created when first written); an empty path
  //! keeps entries in memory only.
  explicit KernelCache(std::filesystem::path directory);

  //! The process-wide cache over defaultCacheDirectory().
  static KernelCache& global();

  //! The payload stored under `key`: from memory, else from a valid disk
  //! entry (then kept in memory); nullopt otherwise.
  std::optional<std::string> lookup(const std::string& key);
  //! Stores `payload` in memory and, atomically, on disk.
  void store(const std::string& key, std::string_view payload);
  //! lookup(key), else `compile()` stored under key. Exceptions from
  //! compile propagate and nothing is stored.
  std::string getOrCompile(const std::string& key, const std::function<std::string()>& compile);

  //! Where `key` lives on disk (empty without a directory).
  std::filesystem::path entryPath(const std::string& key) const;
  const std::filesystem::path& directory() const { return directory_; }
  KernelCacheStats stats() const;
  //! Why the last disk write failed, for messages; empty if none did.
  std::string lastWriteError() const;

 private:
  std::optional<std::string> readEntry(const std::string& key);
  void writeEntry(const std::string& key, std::string_view payload);

  std::filesystem::path directory_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::string> memory_;
  KernelCacheStats stats_;
  std::string lastWriteError_;
};

}  // namespace fuserlab::runtime
