#include "core/runtime/cublaslt_matmul.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

#include "core/cuda/cuda_error.h"
#include "core/cuda/cuda_memory.h"
#include "core/ir/error.h"

namespace fuserlab::runtime {
namespace {

// The most workspace the heuristic may ask for.
constexpr size_t kMaxWorkspaceBytes = size_t{32} << 20;
constexpr int kHeuristicAnswers = 8;

void checkCublas(cublasStatus_t status, std::string_view call, std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw CudaError(static_cast<int>(status), std::string(what) + ": " + std::string(call) +
                                                " failed: " + cublasLtGetStatusName(status) + " (" +
                                                cublasLtGetStatusString(status) + ")");
}

cudaDataType_t cudaType(ir::DataType dtype, const std::string& what) {
  switch (dtype) {
    case ir::DataType::BFloat16: return CUDA_R_16BF;
    case ir::DataType::Half: return CUDA_R_16F;
    case ir::DataType::Float: return CUDA_R_32F;
    default:
      FL_USER_ERROR(what, ": cuBLASLt runs BFloat16, Half and Float here, not ",
                    ir::toString(dtype));
  }
}

cublasLtEpilogue_t epilogueOf(const std::string& name, const std::string& what) {
  if (name == "none") return CUBLASLT_EPILOGUE_DEFAULT;
  if (name == "BIAS") return CUBLASLT_EPILOGUE_BIAS;
  if (name == "RELU") return CUBLASLT_EPILOGUE_RELU;
  if (name == "RELU_BIAS") return CUBLASLT_EPILOGUE_RELU_BIAS;
  if (name == "GELU") return CUBLASLT_EPILOGUE_GELU;
  if (name == "GELU_BIAS") return CUBLASLT_EPILOGUE_GELU_BIAS;
  FL_USER_ERROR(what, ": unknown cuBLASLt epilogue \"", name, "\"");
}

// One handle per device, for the process's lifetime (destroying handles at
// exit races the CUDA runtime's own teardown).
cublasLtHandle_t handleFor(int device, const std::string& what) {
  static std::mutex mutex;
  static std::map<int, cublasLtHandle_t> handles;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasLtHandle_t handle = nullptr;
  checkCublas(cublasLtCreate(&handle), "cublasLtCreate", what);
  handles[device] = handle;
  return handle;
}

// The device's workspace, grown to at least `bytes`.
void* workspaceFor(int device, size_t bytes, const std::string& what) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceBuffer>> workspaces;
  if (bytes == 0) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<DeviceBuffer>& buffer = workspaces[device];
  if (!buffer || static_cast<size_t>(buffer->bytes()) < bytes) {
    // The previous buffer may still be read by queued calls on the stream.
    if (buffer) synchronizeCuda(what + ": growing the cuBLASLt workspace");
    buffer =
        std::make_unique<DeviceBuffer>(static_cast<int64_t>(bytes), device, "cuBLASLt workspace");
  }
  return buffer->data();
}

// A cuBLASLt operand: the stored column-major matrix and the op that makes
// it the logical one.
struct ColumnMajor {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 1;
  cublasOperation_t op = CUBLAS_OP_N;
};

// Logical [r, c] with strides (rs, cs) as a column-major matrix (op N) or the
// transpose of one (op T); nullopt when neither axis has unit stride.
std::optional<ColumnMajor> columnMajor(int64_t r, int64_t c, int64_t rs, int64_t cs,
                                       bool allowTranspose) {
  if (r <= 1 || rs == 1) {
    const int64_t ld = c > 1 ? cs : std::max<int64_t>(r, 1);
    if (ld >= std::max<int64_t>(r, 1)) return ColumnMajor{r, c, ld, CUBLAS_OP_N};
  }
  if (allowTranspose && (c <= 1 || cs == 1)) {
    const int64_t ld = r > 1 ? rs : std::max<int64_t>(c, 1);
    if (ld >= std::max<int64_t>(c, 1)) return ColumnMajor{c, r, ld, CUBLAS_OP_T};
  }
  return std::nullopt;
}

std::string stridesText(const StridedMatrix& m) {
  return "[" + std::to_string(m.rows) + ", " + std::to_string(m.cols) + "] with strides [" +
         std::to_string(m.rowStride) + ", " + std::to_string(m.colStride) + "]";
}

uint32_t alignmentBytes(const void* data, int64_t batchStrideBytes) {
  uint64_t bits = reinterpret_cast<uintptr_t>(data) | static_cast<uint64_t>(batchStrideBytes);
  uint32_t alignment = 256;
  while (alignment > 1 && bits % alignment != 0) alignment /= 2;
  return alignment;
}

}  // namespace

struct CublasLtMatmul::Descriptors {
  cublasLtMatmulDesc_t matmul = nullptr;
  cublasLtMatrixLayout_t a = nullptr;
  cublasLtMatrixLayout_t b = nullptr;
  cublasLtMatrixLayout_t d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  size_t workspaceBytes = 0;
  const void* aData = nullptr;  // cuBLASLt's A and B (swapped for a row-major D)
  const void* bData = nullptr;
  bool transposed = false;  // computed as D^T = B^T A^T

  ~Descriptors() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (matmul) cublasLtMatmulDescDestroy(matmul);
  }
};

CublasLtMatmul::CublasLtMatmul(const MatmulCall& call, int device, const std::string& what)
    : descriptors_(std::make_unique<Descriptors>()), call_(call), device_(device), what_(what) {
  const int64_t m = call.a.rows;
  const int64_t k = call.a.cols;
  const int64_t n = call.b.cols;
  FL_ASSERT(call.b.rows == k && call.d.rows == m && call.d.cols == n, what,
            ": matmul shapes do not agree");
  FL_ASSERT(call.outer.sizes.empty(), what,
            ": an outer batch reached cuBLASLt; splitOuterBatch makes one call per index");
  const bool hasBias = call.epilogue.find("BIAS") != std::string::npos;
  FL_ASSERT(!hasBias || call.bias != nullptr, what, ": a BIAS epilogue without a bias");

  // cuBLASLt's problem: D' (m' x n', column-major) = op(A') op(B').
  // A row-major D is computed transposed: D^T = B^T A^T.
  const bool transposed = n <= 1 || call.d.colStride == 1;
  StridedMatrix a = call.a, b = call.b, d = call.d;
  if (transposed) {
    auto transpose = [](StridedMatrix x) {
      std::swap(x.rows, x.cols);
      std::swap(x.rowStride, x.colStride);
      return x;
    };
    StridedMatrix bt = transpose(call.b);
    StridedMatrix at = transpose(call.a);
    a = bt;
    b = at;
    d = transpose(call.d);
  } else {
    FL_CHECK(!hasBias, what, ": the output ", stridesText(call.d),
             " is column-major, and cuBLASLt adds the bias along its rows, not "
             "its columns (copy needed)");
  }
  auto dLayout = columnMajor(d.rows, d.cols, d.rowStride, d.colStride, false);
  FL_CHECK(dLayout.has_value(), what, ": cuBLASLt cannot write the output ", stridesText(call.d),
           ": neither axis has unit stride (copy needed)");
  auto aLayout = columnMajor(a.rows, a.cols, a.rowStride, a.colStride, true);
  auto bLayout = columnMajor(b.rows, b.cols, b.rowStride, b.colStride, true);
  FL_CHECK(aLayout.has_value() && bLayout.has_value(), what, ": cuBLASLt cannot read the operand ",
           stridesText(aLayout ? (transposed ? call.a : call.b) : (transposed ? call.b : call.a)),
           ": neither axis has unit stride (copy needed)");

  Descriptors& desc = *descriptors_;
  desc.aData = a.data;
  desc.bData = b.data;
  desc.transposed = transposed;
  checkCublas(cublasLtMatmulDescCreate(&desc.matmul, CUBLAS_COMPUTE_32F, CUDA_R_32F),
              "cublasLtMatmulDescCreate", what);
  auto setDesc = [&](cublasLtMatmulDescAttributes_t attribute, const void* value, size_t bytes,
                     const char* name) {
    checkCublas(cublasLtMatmulDescSetAttribute(desc.matmul, attribute, value, bytes), name, what);
  };
  setDesc(CUBLASLT_MATMUL_DESC_TRANSA, &aLayout->op, sizeof(aLayout->op), "setting TRANSA");
  setDesc(CUBLASLT_MATMUL_DESC_TRANSB, &bLayout->op, sizeof(bLayout->op), "setting TRANSB");
  const cublasLtEpilogue_t epilogue = epilogueOf(call.epilogue, what);
  setDesc(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue), "setting EPILOGUE");
  if (hasBias) {
    setDesc(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &call.bias, sizeof(call.bias),
            "setting BIAS_POINTER");
    const int32_t biasType = cudaType(call.biasDtype, what);
    setDesc(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType, sizeof(biasType),
            "setting BIAS_DATA_TYPE");
  }

  auto makeLayout = [&](cublasLtMatrixLayout_t& layout, const ColumnMajor& shape,
                        ir::DataType dtype, int64_t batchStride) {
    checkCublas(cublasLtMatrixLayoutCreate(&layout, cudaType(dtype, what),
                                           static_cast<uint64_t>(shape.rows),
                                           static_cast<uint64_t>(shape.cols), shape.ld),
                "cublasLtMatrixLayoutCreate", what);
    if (call.batch > 1) {
      const int32_t count = static_cast<int32_t>(call.batch);
      checkCublas(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                   &count, sizeof(count)),
                  "setting BATCH_COUNT", what);
      checkCublas(
          cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                           &batchStride, sizeof(batchStride)),
          "setting STRIDED_BATCH_OFFSET", what);
    }
  };
  makeLayout(desc.a, *aLayout, a.dtype, a.batchStride);
  makeLayout(desc.b, *bLayout, b.dtype, b.batchStride);
  makeLayout(desc.d, *dLayout, d.dtype, d.batchStride);

  cublasLtMatmulPreference_t preference = nullptr;
  checkCublas(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate", what);
  struct PreferenceGuard {
    cublasLtMatmulPreference_t p;
    ~PreferenceGuard() { cublasLtMatmulPreferenceDestroy(p); }
  } guard{preference};
  auto setPreference = [&](cublasLtMatmulPreferenceAttributes_t attribute, const void* value,
                           size_t bytes) {
    checkCublas(cublasLtMatmulPreferenceSetAttribute(preference, attribute, value, bytes),
                "cublasLtMatmulPreferenceSetAttribute", what);
  };
  const size_t maxWorkspace = kMaxWorkspaceBytes;
  setPreference(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace, sizeof(maxWorkspace));
  const auto elementBytes = [](ir::DataType t) { return ir::sizeInBytes(t); };
  const uint32_t alignA = alignmentBytes(a.data, a.batchStride * elementBytes(a.dtype));
  const uint32_t alignB = alignmentBytes(b.data, b.batchStride * elementBytes(b.dtype));
  const uint32_t alignD = alignmentBytes(d.data, d.batchStride * elementBytes(d.dtype));
  setPreference(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alignA, sizeof(alignA));
  setPreference(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alignB, sizeof(alignB));
  setPreference(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alignD, sizeof(alignD));
  setPreference(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alignD, sizeof(alignD));

  setCudaDevice(device, what);
  cublasLtHandle_t handle = handleFor(device, what);
  cublasLtMatmulHeuristicResult_t results[kHeuristicAnswers] = {};
  int returned = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(handle, desc.matmul, desc.a, desc.b, desc.d, desc.d,
                                     preference, kHeuristicAnswers, results, &returned);
  FL_CHECK(status != CUBLAS_STATUS_NOT_SUPPORTED && returned > 0, what,
           ": cuBLASLt has no algorithm for ", ir::toString(call.a.dtype), " x ",
           ir::toString(call.b.dtype), " -> ", ir::toString(call.d.dtype), " with epilogue ",
           call.epilogue,
           hasBias ? std::string(" (bias ") + std::string(ir::toString(call.biasDtype)) + ")"
                   : std::string(),
           " at these sizes and alignments");
  checkCublas(status, "cublasLtMatmulAlgoGetHeuristic", what);
  FL_CHECK(call.heuristicIndex >= 0 && call.heuristicIndex < returned, what,
           ": the params ask for heuristic answer ", call.heuristicIndex, " but cuBLASLt gave ",
           returned);
  const cublasLtMatmulHeuristicResult_t& chosen = results[call.heuristicIndex];
  desc.algo = chosen.algo;
  desc.workspaceBytes = chosen.workspaceSize;

  auto config = [&](cublasLtMatmulAlgoConfigAttributes_t attribute) {
    int32_t value = -1;
    size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&desc.algo, attribute, &value, sizeof(value), &written);
    return std::to_string(value);
  };
  algo_ = "heuristic " + std::to_string(call.heuristicIndex) + " of " + std::to_string(returned) +
          ": algo id " + config(CUBLASLT_ALGO_CONFIG_ID) + ", tile " +
          config(CUBLASLT_ALGO_CONFIG_TILE_ID) + ", stages " +
          config(CUBLASLT_ALGO_CONFIG_STAGES_ID) + ", split-k " +
          config(CUBLASLT_ALGO_CONFIG_SPLITK_NUM) + ", workspace " +
          std::to_string(chosen.workspaceSize) + " bytes";
}

CublasLtMatmul::~CublasLtMatmul() = default;

const void* CublasLtMatmul::workspace() const {
  return workspaceFor(device_, descriptors_->workspaceBytes, what_);
}

void CublasLtMatmul::run(void* stream) const {
  const Descriptors& desc = *descriptors_;
  void* workspace = workspaceFor(device_, desc.workspaceBytes, what_);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  checkCublas(
      cublasLtMatmul(handleFor(device_, what_), desc.matmul, &alpha, desc.aData, desc.a, desc.bData,
                     desc.b, &beta, call_.d.data, desc.d, const_cast<void*>(call_.d.data), desc.d,
                     &desc.algo, workspace, desc.workspaceBytes, static_cast<cudaStream_t>(stream)),
      "cublasLtMatmul", what_);
}

void CublasLtMatmul::setPointers(const std::array<const void*, 4>& pointers) {
  FL_ASSERT((pointers[3] == nullptr) == (call_.bias == nullptr), what_,
            ": a replay binds a bias where the planned call has none, or none where it has one");
  call_.a.data = pointers[0];
  call_.b.data = pointers[1];
  call_.d.data = pointers[2];
  Descriptors& desc = *descriptors_;
  desc.aData = desc.transposed ? call_.b.data : call_.a.data;
  desc.bData = desc.transposed ? call_.a.data : call_.b.data;
  if (call_.bias != pointers[3]) {
    call_.bias = pointers[3];
    checkCublas(cublasLtMatmulDescSetAttribute(desc.matmul, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                               &call_.bias, sizeof(call_.bias)),
                "setting BIAS_POINTER", what_);
  }
}

std::string cublasLtVersionString() {
  const size_t version = cublasLtGetVersion();
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

}  // namespace fuserlab::runtime
