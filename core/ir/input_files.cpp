#include "core/ir/input_files.h"

#include <sys/stat.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

struct InputFile {
  dev_t device = 0;
  ino_t inode = 0;
  std::string what;
};

std::atomic<bool> gProtected{false};
std::mutex gMutex;
std::vector<InputFile> gInputs;  // guarded by gMutex; a command reads a handful

}  // namespace

void protectInputFiles() { gProtected = true; }

void noteInputFile(const std::string& path, std::string_view what) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return;
  const std::lock_guard<std::mutex> lock(gMutex);
  for (const InputFile& input : gInputs) {
    if (input.device == info.st_dev && input.inode == info.st_ino) return;
  }
  gInputs.push_back({info.st_dev, info.st_ino, std::string(what)});
}

void checkNotAnInputFile(const std::string& path) {
  if (!gProtected) return;
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
  const std::lock_guard<std::mutex> lock(gMutex);
  for (const InputFile& input : gInputs) {
    FL_CHECK(input.device != info.st_dev || input.inode != info.st_ino, "refusing to write '", path,
             "': it is the ", input.what,
             " this command reads, which the output would replace; give another output path");
  }
}

}  // namespace fuserlab::ir
