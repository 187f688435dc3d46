#include "core/cuda/kernel_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace fuserlab::runtime {
namespace {

namespace fs = std::filesystem;

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fuserlab_kernel_cache_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static void writeFile(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }

  fs::path dir_;
  const std::string keyA_ = kernelCacheKey("kernel A", {"-O3"}, "sm_90", "13.0");
  const std::string keyB_ = kernelCacheKey("kernel B", {"-O3"}, "sm_90", "13.0");
  // Bytes of every value, NUL included, as a cubin has.
  const std::string payload_ = std::string(
                                   "\x7f"
                                   "ELF\0\x01\x02",
                                   7) +
                               "cubin";
};

TEST_F(KernelCacheTest, KeyCoversSourceOptionsArchAndCompilerVersion) {
  const std::string key = kernelCacheKey("src", {"-a", "-b"}, "sm_90", "13.0");
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key, kernelCacheKey("src", {"-a", "-b"}, "sm_90", "13.0"));
  EXPECT_NE(key, kernelCacheKey("src2", {"-a", "-b"}, "sm_90", "13.0"));
  EXPECT_NE(key, kernelCacheKey("src", {"-a"}, "sm_90", "13.0"));
  EXPECT_NE(key, kernelCacheKey("src", {"-a-b"}, "sm_90", "13.0"));
  EXPECT_NE(key, kernelCacheKey("src", {"-a", "-b"}, "sm_80", "13.0"));
  EXPECT_NE(key, kernelCacheKey("src", {"-a", "-b"}, "sm_90", "12.8"));
}

TEST_F(KernelCacheTest, RoundTripThroughDiskInANewProcessCache) {
  {
    KernelCache cache(dir_);
    int compiles = 0;
    EXPECT_EQ(cache.getOrCompile(keyA_,
                                 [&] {
                                   ++compiles;
                                   return payload_;
                                 }),
              payload_);
    EXPECT_EQ(cache.getOrCompile(keyA_,
                                 [&] {
                                   ++compiles;
                                   return payload_;
                                 }),
              payload_);
    EXPECT_EQ(compiles, 1);
    EXPECT_EQ(cache.stats().memoryHits, 1);
    EXPECT_TRUE(fs::exists(cache.entryPath(keyA_)));
  }
  KernelCache fresh(dir_);  // as a later process sees the directory
  auto hit = fresh.lookup(keyA_);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, payload_);
  EXPECT_EQ(fresh.stats().diskHits, 1);
  EXPECT_EQ(fresh.stats().rejectedEntries, 0);
  // No temporary files are left beside the entry.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST_F(KernelCacheTest, CorruptEntryIsIgnoredAndRebuilt) {
  KernelCache(dir_).store(keyA_, payload_);
  const fs::path path = KernelCache(dir_).entryPath(keyA_);
  std::string bytes = readFile(path);
  bytes.back() ^= 0x01;  // one flipped bit in the payload
  writeFile(path, bytes);

  KernelCache cache(dir_);
  EXPECT_FALSE(cache.lookup(keyA_).has_value());
  EXPECT_EQ(cache.stats().rejectedEntries, 1);
  int compiles = 0;
  EXPECT_EQ(cache.getOrCompile(keyA_,
                               [&] {
                                 ++compiles;
                                 return payload_;
                               }),
            payload_);
  EXPECT_EQ(compiles, 1);
  // The rebuilt entry is valid again for the next process.
  KernelCache next(dir_);
  EXPECT_EQ(next.lookup(keyA_).value_or(""), payload_);
}

TEST_F(KernelCacheTest, TruncatedAndGarbageEntriesAreIgnored) {
  KernelCache(dir_).store(keyA_, payload_);
  const fs::path path = KernelCache(dir_).entryPath(keyA_);
  const std::string bytes = readFile(path);
  writeFile(path, bytes.substr(0, bytes.size() - 3));
  EXPECT_FALSE(KernelCache(dir_).lookup(keyA_).has_value());
  writeFile(path, bytes + "extra");
  EXPECT_FALSE(KernelCache(dir_).lookup(keyA_).has_value());
  writeFile(path, "not a cache entry at all");
  EXPECT_FALSE(KernelCache(dir_).lookup(keyA_).has_value());
  writeFile(path, "");
  EXPECT_FALSE(KernelCache(dir_).lookup(keyA_).has_value());
}

TEST_F(KernelCacheTest, ForeignKeyIsIgnored) {
  // A valid entry for key A sitting where key B's entry belongs (a copied
  // file, a renamed one) is another kernel: never returned for B.
  KernelCache writer(dir_);
  writer.store(keyA_, payload_);
  fs::copy_file(writer.entryPath(keyA_), writer.entryPath(keyB_));
  KernelCache cache(dir_);
  EXPECT_FALSE(cache.lookup(keyB_).has_value());
  EXPECT_EQ(cache.stats().rejectedEntries, 1);
  EXPECT_EQ(cache.lookup(keyA_).value_or(""), payload_);
}

// Issue 43 item 7: only a regular file of a kernel's size is read back as
// an entry; anything else at its path is a miss, compiled and replaced.
TEST_F(KernelCacheTest, NamedPipeEntryIsAMissNotAHang) {
  fs::create_directories(dir_);
  KernelCache cache(dir_);
  const fs::path path = cache.entryPath(keyA_);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // Were the lookup to wait for a writer, this watchdog unblocks it after
  // 5 s (opening the pipe for reading and writing never blocks) so the test
  // fails rather than hangs.
  std::atomic<bool> done{false};
  std::atomic<bool> unblocked{false};
  std::thread watchdog([&] {
    for (int i = 0; i < 500 && !done; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (done) return;
    unblocked = true;
    const int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  });
  int compiles = 0;
  const std::string got = cache.getOrCompile(keyA_, [&] {
    ++compiles;
    return payload_;
  });
  done = true;
  watchdog.join();
  EXPECT_FALSE(unblocked) << "the lookup waited on the named pipe";
  EXPECT_EQ(got, payload_);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(cache.stats().rejectedEntries, 1);
  // The store replaced the pipe with a valid entry.
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path)));
  EXPECT_EQ(KernelCache(dir_).lookup(keyA_).value_or(""), payload_);
}

TEST_F(KernelCacheTest, SymlinkEntryIsNotFollowed) {
  // A link to a valid entry elsewhere: a link could as well point at
  // /dev/zero (read until memory runs out), so no link is followed.
  const fs::path elsewhere = dir_ / "elsewhere";
  KernelCache(elsewhere).store(keyA_, payload_);
  KernelCache cache(dir_);
  fs::create_symlink(KernelCache(elsewhere).entryPath(keyA_), cache.entryPath(keyA_));
  EXPECT_FALSE(cache.lookup(keyA_).has_value());
  EXPECT_EQ(cache.stats().rejectedEntries, 1);
  EXPECT_EQ(cache.stats().diskHits, 0);

  fs::remove(cache.entryPath(keyA_));
  fs::create_symlink("/dev/zero", cache.entryPath(keyA_));
  KernelCache again(dir_);
  int compiles = 0;
  EXPECT_EQ(again.getOrCompile(keyA_,
                               [&] {
                                 ++compiles;
                                 return payload_;
                               }),
            payload_);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(again.stats().rejectedEntries, 1);
  // The store replaced the link (not what it points at) with an entry.
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(again.entryPath(keyA_))));
}

TEST_F(KernelCacheTest, DirectoryEntryIsAMiss) {
  KernelCache cache(dir_);
  fs::create_directories(cache.entryPath(keyA_));
  int compiles = 0;
  std::string got;
  EXPECT_NO_THROW(got = cache.getOrCompile(keyA_, [&] {
    ++compiles;
    return payload_;
  }));
  EXPECT_EQ(got, payload_);
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(cache.stats().rejectedEntries, 1);
  // A directory cannot be replaced by a rename: the write fails, the cache
  // still answers from memory.
  EXPECT_EQ(cache.stats().writeFailures, 1);
  EXPECT_EQ(cache.lookup(keyA_).value_or(""), payload_);
}

TEST_F(KernelCacheTest, EntryLargerThanAnyKernelIsNotRead) {
  // A well-formed entry over the 64 MiB bound is not one FuserLab wrote.
  const std::string huge(size_t{65} << 20, 'k');
  KernelCache(dir_).store(keyA_, huge);
  KernelCache cache(dir_);
  EXPECT_FALSE(cache.lookup(keyA_).has_value());
  EXPECT_EQ(cache.stats().rejectedEntries, 1);
}

TEST_F(KernelCacheTest, UnwritableDirectoryLeavesAMemoryCache) {
  writeFile(dir_, "a file where the directory should be");
  KernelCache cache(dir_ / "sub");
  cache.store(keyA_, payload_);
  EXPECT_EQ(cache.stats().writeFailures, 1);
  EXPECT_NE(cache.lastWriteError().find("cannot write kernel cache entry"), std::string::npos);
  EXPECT_EQ(cache.lookup(keyA_).value_or(""), payload_);
  fs::remove(dir_);
}

TEST_F(KernelCacheTest, FailedCompileStoresNothing) {
  KernelCache cache(dir_);
  EXPECT_THROW(
      cache.getOrCompile(keyA_, []() -> std::string { throw std::runtime_error("nvrtc"); }),
      std::runtime_error);
  EXPECT_FALSE(cache.lookup(keyA_).has_value());
  EXPECT_FALSE(fs::exists(cache.entryPath(keyA_)));
}

TEST_F(KernelCacheTest, DefaultDirectoryFollowsTheEnvironment) {
  const char* saved[3] = {std::getenv("FUSERLAB_CACHE_DIR"), std::getenv("XDG_CACHE_HOME"),
                          std::getenv("HOME")};
  const std::string keep[3] = {saved[0] ? saved[0] : "", saved[1] ? saved[1] : "",
                               saved[2] ? saved[2] : ""};
  ::setenv("FUSERLAB_CACHE_DIR", "/tmp/flc", 1);
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  ::setenv("HOME", "/tmp/home", 1);
  EXPECT_EQ(defaultCacheDirectory(), fs::path("/tmp/flc"));
  ::unsetenv("FUSERLAB_CACHE_DIR");
  EXPECT_EQ(defaultCacheDirectory(), fs::path("/tmp/xdg/fuserlab"));
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(defaultCacheDirectory(), fs::path("/tmp/home/.cache/fuserlab"));
  const char* names[3] = {"FUSERLAB_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i) {
    if (saved[i]) ::setenv(names[i], keep[i].c_str(), 1);
    else ::unsetenv(names[i]);
  }
}

}  // namespace
}  // namespace fuserlab::runtime
