#include "core/compiler/input_description.h"

#include <cstdint>

#include "core/tensor/binding.h"

namespace fuserlab::runtime {
namespace {

int64_t alignmentOf(const Tensor& tensor) {
  // A metadata-only tensor's base counts as 256-byte aligned (as allocations
  // are); its storage offset alone decides.
  const uintptr_t address =
      tensor.isMetadataOnly()
          ? static_cast<uintptr_t>(tensor.storageOffset() * ir::sizeInBytes(tensor.dtype()))
          : reinterpret_cast<uintptr_t>(tensor.data());
  int64_t alignment = 256;
  while (alignment > 1 && address % static_cast<uintptr_t>(alignment) != 0) {
    alignment /= 2;
  }
  return alignment;
}

}  // namespace

std::vector<scheduler::TensorInputInfo> describeInputs(const ir::Fusion& fusion,
                                                       const Arguments& args,
                                                       ir::ExpressionEvaluator& evaluator) {
  bindInputs(fusion, args, evaluator);
  std::vector<scheduler::TensorInputInfo> infos;
  infos.reserve(args.size());
  for (const Argument& arg : args) {
    scheduler::TensorInputInfo info;
    if (const auto* tensor = std::get_if<Tensor>(&arg)) {
      info.sizes = tensor->sizes();
      info.strides = tensor->strides();
      info.alignmentBytes = alignmentOf(*tensor);
    }
    infos.push_back(std::move(info));
  }
  return infos;
}

}  // namespace fuserlab::runtime
