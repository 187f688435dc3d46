#include "core/runtime/copy_kernel.h"

#include <algorithm>
#include <sstream>

#include "core/ir/error.h"

namespace fuserlab::runtime {

codegen::GeneratedKernel stridedCopyKernel(int64_t elementBytes, int rank, int64_t elements) {
  const char* type = elementBytes == 1   ? "uint8_t"
                     : elementBytes == 2 ? "uint16_t"
                     : elementBytes == 4 ? "uint32_t"
                     : elementBytes == 8 ? "uint64_t"
                                         : nullptr;
  FL_ASSERT(type != nullptr, "no copy kernel for ", elementBytes, "-byte elements");
  codegen::GeneratedKernel kernel;
  kernel.name = "fuserlab_copy_" + std::to_string(elementBytes) + "b_r" + std::to_string(rank);
  const int r = std::max(rank, 1);
  std::ostringstream src;
  src << "#include \"fuserlab_device.cuh\"\n\n"
      << "extern \"C\" __global__ void " << kernel.name << "(fl::Tensor<" << type << ", " << rank
      << "> in, fl::Tensor<" << type << ", " << rank << "> out) {\n"
      << codegen::kKernelEntry;
  if (rank == 0) {
    src << "  if (blockIdx.x == 0 && threadIdx.x == 0) out.data[0] = in.data[0];\n}\n";
  } else {
    src << "  int64_t total = 1;\n"
        << "  for (int d = 0; d < " << r << "; ++d) total *= out.size[d];\n"
        << "  for (int64_t index = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
        << "       index < total; index += (int64_t)gridDim.x * blockDim.x) {\n"
        << "    int64_t rest = index, from = 0, to = 0;\n"
        << "    for (int d = " << r - 1 << "; d >= 0; --d) {\n"
        << "      const int64_t i = rest % out.size[d];\n"
        << "      rest /= out.size[d];\n"
        << "      from += i * in.stride[d];\n"
        << "      to += i * out.stride[d];\n"
        << "    }\n"
        << "    out.data[to] = in.data[from];\n"
        << "  }\n"
        << "}\n";
  }
  kernel.source = src.str();
  kernel.waitsForPriorGrids = true;
  for (int i = 0; i < 2; ++i) {
    codegen::KernelParameter p;
    p.kind = codegen::KernelParameter::Kind::Tensor;
    p.rank = rank;
    p.name = i == 0 ? "in" : "out";
    kernel.parameters.push_back(p);
  }
  kernel.int64Indexing = true;
  constexpr int64_t kBlock = 256;
  const int64_t blocks = std::clamp<int64_t>((elements + kBlock - 1) / kBlock, 1, 65535);
  kernel.launch.grid = {blocks, 1, 1};
  kernel.launch.block = {kBlock, 1, 1};
  return kernel;
}

}  // namespace fuserlab::runtime
