#include "tuner/output_comparison.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

#include "core/cuda/cuda_error.h"
#include "core/cuda/cuda_module.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/ir/error.h"

namespace fuserlab::tuner {
namespace {

// The kernel's element type: bool as its byte (compared bit for bit).
const char* elementType(ir::DataType dtype) {
  switch (dtype) {
    case ir::DataType::Bool: return "uint8_t";
    case ir::DataType::Int32: return "int32_t";
    case ir::DataType::Int: return "int64_t";
    case ir::DataType::Half: return "fl::half";
    case ir::DataType::BFloat16: return "fl::bfloat16";
    case ir::DataType::Float: return "float";
    case ir::DataType::Double: return "double";
    default: return nullptr;
  }
}

// The element offsets of row-major position `index` in both tensors.
void writeOffsets(std::ostringstream& src, int rank, const std::vector<std::string>& tensors) {
  src << "    int64_t rest = index;\n";
  for (const std::string& t : tensors) src << "    int64_t at_" << t << " = 0;\n";
  if (rank > 0) {
    src << "    for (int d = " << rank - 1 << "; d >= 0; --d) {\n"
        << "      const int64_t i = rest % expected.size[d];\n"
        << "      rest /= expected.size[d];\n";
    for (const std::string& t : tensors)
      src << "      at_" << t << " += i * " << t << ".stride[d];\n";
    src << "    }\n";
  }
  src << "    (void)rest;\n";
}

std::string listString(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

constexpr int64_t kBlock = 256;

codegen::LaunchConfig launchFor(int64_t elements) {
  codegen::LaunchConfig config;
  config.grid = {std::clamp<int64_t>((elements + kBlock - 1) / kBlock, 1, 65535), 1, 1};
  config.block = {kBlock, 1, 1};
  return config;
}

// The element at `offset` (elements from data()) of device tensor `t`.
double elementAt(const runtime::Tensor& t, int64_t offset) {
  uint64_t bytes = 0;
  const int64_t size = ir::sizeInBytes(t.dtype());
  runtime::checkCuda(cudaMemcpy(&bytes, static_cast<const char*>(t.data()) + offset * size,
                                static_cast<size_t>(size), cudaMemcpyDeviceToHost),
                     "cudaMemcpy", "reading a mismatching output element");
  const runtime::Tensor one =
      runtime::Tensor::borrow(&bytes, t.dtype(), {}, {}, 0, runtime::DeviceKind::Cpu);
  return one.item({});
}

int64_t offsetOf(const runtime::Tensor& t, const std::vector<int64_t>& index) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset += index[d] * t.strides()[d];
  return offset;
}

}  // namespace

bool comparableOnDevice(ir::DataType dtype) { return elementType(dtype) != nullptr; }

std::string comparisonKernelName(ir::DataType dtype, int rank) {
  return "fuserlab_compare_" + std::string(ir::shortName(dtype)) + "_r" + std::to_string(rank);
}

codegen::GeneratedKernel comparisonKernels(ir::DataType dtype, int rank) {
  const char* type = elementType(dtype);
  FL_ASSERT(type != nullptr, "no comparison kernel for ", ir::toString(dtype));
  const bool floating = ir::isFloatingPoint(dtype);
  codegen::GeneratedKernel kernel;
  kernel.name = comparisonKernelName(dtype, rank);
  const std::string tensor = "fl::Tensor<" + std::string(type) + ", " + std::to_string(rank) + ">";
  std::ostringstream src;
  src << "#include \"fuserlab_device.cuh\"\n\n"
      << "#define FL_DOUBLE_MAX 1.7976931348623157e308\n\n"
      << "// result_check.h's rule: NaN only where the expected value is NaN,\n"
      << "// infinities equal, else |x - y| <= atol + rtol * |y|.\n"
      << "__device__ __forceinline__ bool fl_differs(double x, double y, double rtol, double atol) "
         "{\n"
      << "  const bool nan_x = x != x, nan_y = y != y;\n"
      << "  if (nan_x || nan_y) return nan_x != nan_y;\n"
      << "  if (fabs(x) > FL_DOUBLE_MAX || fabs(y) > FL_DOUBLE_MAX) return x != y;\n"
      << "  return fabs(x - y) > atol + rtol * fabs(y);\n"
      << "}\n\n";
  // counters[0]: mismatches; counters[1]: the first mismatch's position.
  src << "extern \"C\" __global__ void " << kernel.name << "(" << tensor << " actual, " << tensor
      << " expected, double rtol, double atol, unsigned long long* counters) {\n"
      << "  int64_t total = 1;\n";
  if (rank > 0) src << "  for (int d = 0; d < " << rank << "; ++d) total *= expected.size[d];\n";
  src << "  for (int64_t index = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; index < total;\n"
      << "       index += (int64_t)gridDim.x * blockDim.x) {\n";
  writeOffsets(src, rank, {"actual", "expected"});
  if (floating) {
    src << "    const bool bad = fl_differs((double)fl::load_value(actual.data[at_actual]),\n"
        << "                                (double)fl::load_value(expected.data[at_expected]), "
           "rtol, atol);\n";
  } else {
    src << "    const bool bad = actual.data[at_actual] != expected.data[at_expected];\n"
        << "    (void)rtol;\n    (void)atol;\n";
  }
  src << "    if (bad) {\n"
      << "      atomicAdd(&counters[0], 1ull);\n"
      << "      atomicMin(&counters[1], (unsigned long long)index);\n"
      << "    }\n"
      << "  }\n"
      << "}\n\n";
  // counters[2]: the largest finite |expected|, as the bits of a
  // non-negative double (which order as the doubles do).
  src << "extern \"C\" __global__ void " << kernel.name << "_max_abs(" << tensor
      << " expected, unsigned long long* counters) {\n"
      << "  int64_t total = 1;\n";
  if (rank > 0) src << "  for (int d = 0; d < " << rank << "; ++d) total *= expected.size[d];\n";
  src << "  double largest = 0;\n"
      << "  for (int64_t index = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; index < total;\n"
      << "       index += (int64_t)gridDim.x * blockDim.x) {\n";
  writeOffsets(src, rank, {"expected"});
  if (floating) {
    src << "    const double v = fabs((double)fl::load_value(expected.data[at_expected]));\n"
        << "    if (v <= FL_DOUBLE_MAX && v > largest) largest = v;\n";
  } else {
    src << "    (void)at_expected;\n";
  }
  src << "  }\n"
      << "  if (largest > 0) atomicMax(&counters[2], (unsigned long long)__double_as_longlong("
         "largest));\n"
      << "}\n";
  kernel.source = src.str();
  kernel.int64Indexing = true;
  for (const char* name : {"actual", "expected"}) {
    codegen::KernelParameter p;
    p.kind = codegen::KernelParameter::Kind::Tensor;
    p.dtype = dtype;
    p.rank = rank;
    p.name = name;
    kernel.parameters.push_back(p);
  }
  kernel.launch.block = {kBlock, 1, 1};
  return kernel;
}

struct DeviceComparer::Loaded {
  std::unique_ptr<runtime::CudaModule> module;
  runtime::CudaKernel compare;
  runtime::CudaKernel maxAbs;
};

DeviceComparer::DeviceComparer(const scheduler::DeviceSpec& spec, int device)
    : spec_(spec),
      device_(device),
      counters_(3 * sizeof(uint64_t), device, "comparison counters") {}

DeviceComparer::~DeviceComparer() = default;

DeviceComparer::Loaded& DeviceComparer::kernelsFor(ir::DataType dtype, int rank) {
  std::unique_ptr<Loaded>& loaded = kernels_[{static_cast<int>(dtype), rank}];
  if (!loaded) {
    const codegen::GeneratedKernel kernel = comparisonKernels(dtype, rank);
    const runtime::NvrtcOutput out = runtime::compileWithNvrtc(kernel, spec_.computeCapability());
    auto fresh = std::make_unique<Loaded>();
    fresh->module = std::make_unique<runtime::CudaModule>(
        std::string_view(out.cubin.data(), out.cubin.size()), "the output comparison");
    fresh->compare = fresh->module->kernel(kernel.name, "the output comparison");
    fresh->maxAbs = fresh->module->kernel(kernel.name + "_max_abs", "the output comparison");
    loaded = std::move(fresh);
  }
  return *loaded;
}

void DeviceComparer::resetCounters(uint64_t mismatchStart) {
  const uint64_t start[3] = {0, mismatchStart, 0};
  runtime::checkCuda(cudaMemcpy(counters_.data(), start, sizeof start, cudaMemcpyHostToDevice),
                     "cudaMemcpy", "resetting the comparison counters");
}

void DeviceComparer::readCounters(uint64_t counters[3]) {
  // On the legacy default stream, after the comparison's launch.
  runtime::checkCuda(
      cudaMemcpy(counters, counters_.data(), 3 * sizeof(uint64_t), cudaMemcpyDeviceToHost),
      "cudaMemcpy", "reading the comparison counters");
}

double DeviceComparer::maxAbs(const runtime::Tensor& tensor) {
  if (!ir::isFloatingPoint(tensor.dtype()) || tensor.numel() == 0 || tensor.isCpu()) return 0;
  Loaded& k = kernelsFor(tensor.dtype(), static_cast<int>(tensor.dim()));
  resetCounters(0);
  runtime::KernelArguments args;
  args.addTensor(tensor.data(), tensor.sizes(), tensor.strides());
  args.addPointer(counters_.data());
  k.maxAbs.launch(launchFor(tensor.numel()), args.pointers(), "the output comparison");
  uint64_t counters[3];
  readCounters(counters);
  double largest = 0;
  std::memcpy(&largest, &counters[2], sizeof largest);
  return largest;
}

runtime::TensorCheck DeviceComparer::compare(const runtime::Tensor& actual,
                                             const runtime::Tensor& expected, std::string_view name,
                                             const runtime::Tolerance& tolerance,
                                             double expectedMaxAbs) {
  runtime::TensorCheck check;
  const std::string label(name);
  if (actual.dtype() != expected.dtype() || actual.sizes() != expected.sizes()) {
    check.passed = false;
    check.message = label + ": the result is " + std::string(ir::toString(actual.dtype())) +
                    listString(actual.sizes()) + " but the default variant's is " +
                    std::string(ir::toString(expected.dtype())) + listString(expected.sizes());
    return check;
  }
  const bool floating = ir::isFloatingPoint(expected.dtype());
  const double atol = floating ? tolerance.atol + tolerance.atolOfMax * expectedMaxAbs : 0;
  const double rtol = floating ? tolerance.rtol : 0;
  const std::string tolText =
      floating ? " (rtol " + number(rtol) + ", atol " + number(atol) + ")" : " (exact)";
  check.elements = expected.numel();
  if (check.elements == 0) {
    check.message = label + ": empty, nothing to compare";
    return check;
  }
  FL_ASSERT(!actual.isCpu() && !expected.isCpu(), "the GPU comparison of ", label,
            " got a CPU tensor");
  Loaded& k = kernelsFor(expected.dtype(), static_cast<int>(expected.dim()));
  resetCounters(~uint64_t{0});
  runtime::KernelArguments args;
  args.addTensor(actual.data(), actual.sizes(), actual.strides());
  args.addTensor(expected.data(), expected.sizes(), expected.strides());
  args.addScalar(ir::DataType::Double, ir::ScalarValue(rtol));
  args.addScalar(ir::DataType::Double, ir::ScalarValue(atol));
  args.addPointer(counters_.data());
  k.compare.launch(launchFor(check.elements), args.pointers(), "the output comparison");
  uint64_t counters[3];
  readCounters(counters);
  check.mismatches = static_cast<int64_t>(counters[0]);
  check.passed = check.mismatches == 0;
  if (check.passed) {
    check.message = label + ": " + std::to_string(check.elements) +
                    " elements match the default variant's" + tolText;
    return check;
  }
  // The first mismatch, unravelled, and both of its values.
  int64_t rest = static_cast<int64_t>(counters[1]);
  check.worstIndex.assign(expected.sizes().size(), 0);
  for (size_t d = expected.sizes().size(); d-- > 0;) {
    check.worstIndex[d] = rest % expected.sizes()[d];
    rest /= expected.sizes()[d];
  }
  check.worstActual = elementAt(actual, offsetOf(actual, check.worstIndex));
  check.worstExpected = elementAt(expected, offsetOf(expected, check.worstIndex));
  check.maxAbsError = std::abs(check.worstActual - check.worstExpected);
  check.message = label + ": " + std::to_string(check.mismatches) + " of " +
                  std::to_string(check.elements) + " elements differ from the default variant's" +
                  tolText + "; first at " + listString(check.worstIndex) + ": " +
                  number(check.worstActual) + " (result) vs " + number(check.worstExpected) +
                  " (default variant)";
  return check;
}

}  // namespace fuserlab::tuner
