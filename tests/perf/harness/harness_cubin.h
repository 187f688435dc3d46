// Generated kernels in the harnesses: a command-line spec `FILE:FIELD:...`
// split at its colons, and a cubin's kernel loaded as FuserLab's executor
// loads it (cudaLibraryLoadData, then the kernel by name).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "harness_check.h"

static std::vector<std::string> splitSpec(const std::string& spec) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t i = 0; i <= spec.size(); ++i) {
    if (i == spec.size() || spec[i] == ':') {
      fields.push_back(spec.substr(start, i - start));
      start = i + 1;
    }
  }
  return fields;
}

// The kernel `name` of the cubin at `path`; a file that cannot be read ends
// the program, saying which.
static cudaKernel_t loadCubinKernel(const std::string& path, const char* name) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  const std::string image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  cudaLibrary_t lib;
  CHECK(cudaLibraryLoadData(&lib, image.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel;
  CHECK(cudaLibraryGetKernel(&kernel, lib, name));
  return kernel;
}
