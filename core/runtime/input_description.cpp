#include "core/runtime/input_description.h"

#include <cstdint>

#include "core/runtime/binding.h"

namespace fuserlab::runtime {
namespace {

int64_t alignmentOf(const Tensor& tensor) {
  const auto address = reinterpret_cast<uintptr_t>(tensor.data());
  int64_t alignment = 256;
  while (alignment > 1 && address % static_cast<uintptr_t>(alignment) != 0) {
    alignment /= 2;
  }
  return alignment;
}

}  // namespace

Tensor metadataOnly(ir::DataType dtype, std::vector<int64_t> sizes,
                    std::vector<int64_t> strides, int64_t storageOffset) {
  return Tensor::borrow(nullptr, dtype, std::move(sizes), std::move(strides),
                        storageOffset, DeviceKind::Cuda);
}

std::vector<scheduler::TensorInputInfo> describeInputs(
    const ir::Fusion& fusion, const Arguments& args,
    ir::ExpressionEvaluator& evaluator) {
  bindInputs(fusion, args, evaluator);
  std::vector<scheduler::TensorInputInfo> infos;
  infos.reserve(args.size());
  for (const Argument& arg : args) {
    scheduler::TensorInputInfo info;
    if (const auto* tensor = std::get_if<Tensor>(&arg)) {
      info.sizes = tensor->sizes();
      info.strides = tensor->strides();
      // A null base is a metadata-only tensor: its offset alone decides.
      info.alignmentBytes = alignmentOf(*tensor);
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

}  // namespace fuserlab::runtime
