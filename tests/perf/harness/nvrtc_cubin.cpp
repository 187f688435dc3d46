// Compiles a kernel file that `fuserlab-cli compile --out DIR` wrote, or a
// hand-edited copy of one, to a cubin with NVRTC and the options the
// executor uses (core/cuda/nvrtc_compiler.cpp), so the harnesses time
// exactly what FuserLab would load. nvcc cannot stand in: the generated
// code's header declares the fixed-width integer types itself, as NVRTC
// has no standard headers. Not built by CMake:
//
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include -o nvrtc_cubin \
//     tests/perf/harness/nvrtc_cubin.cpp -L/usr/local/cuda/lib64 -lnvrtc
//   ./nvrtc_cubin KERNEL.cu OUT.cubin [sm_90] [--maxrregcount=N ...]
//
// The directory of KERNEL.cu must hold fuserlab_device.cuh. Prints ptxas's
// register report.
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

static std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s KERNEL.cu OUT.cubin [sm_NN] [nvrtc options...]\n", argv[0]);
    return 2;
  }
  const std::string source = readFile(argv[1]);
  std::string dir = argv[1];
  dir = dir.find('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
  const std::string header = readFile(dir + "/fuserlab_device.cuh");
  std::string arch = "sm_90";
  int next = 3;
  if (argc > 3 && std::string(argv[3]).rfind("sm_", 0) == 0) arch = argv[next++];

  const char* headers[] = {header.c_str()};
  const char* names[] = {"fuserlab_device.cuh"};
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, source.c_str(), argv[1], 1, headers, names) != NVRTC_SUCCESS) {
    std::fprintf(stderr, "nvrtcCreateProgram failed\n");
    return 1;
  }
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "-default-device",
                                      "--std=c++17", "-Xptxas=-v"};
  for (int i = next; i < argc; ++i) options.push_back(argv[i]);
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(prog, (int)opts.size(), opts.data());
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  std::string log(logSize, '\0');
  nvrtcGetProgramLog(prog, log.data());
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (r != NVRTC_SUCCESS || line.find("ptxas") != std::string::npos ||
        line.find("error") != std::string::npos) {
      std::printf("%s\n", line.c_str());
    }
  }
  if (r != NVRTC_SUCCESS) return 1;
  size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  std::string cubin(size, '\0');
  nvrtcGetCUBIN(prog, cubin.data());
  std::ofstream(argv[2], std::ios::binary).write(cubin.data(), (std::streamsize)cubin.size());
  nvrtcDestroyProgram(&prog);
  return 0;
}
