#include "core/tensor/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <sstream>

#include "core/tensor/element_type.h"

namespace fuserlab::runtime {
namespace {

constexpr int64_t kAlignmentBytes = 64;

std::string formatList(const std::vector<int64_t>& values) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << "]";
  return out.str();
}

int64_t checkedMul(int64_t a, int64_t b, const char* what) {
  int64_t result = 0;
  FL_CHECK(!__builtin_mul_overflow(a, b, &result), what, ": size overflows 64 bits (", a, " * ", b,
           ")");
  return result;
}

int64_t checkedAdd(int64_t a, int64_t b, const char* what) {
  int64_t result = 0;
  FL_CHECK(!__builtin_add_overflow(a, b, &result), what, ": size overflows 64 bits (", a, " + ", b,
           ")");
  return result;
}

void checkDtype(ir::DataType dtype, const char* what) {
  FL_CHECK(dtype != ir::DataType::Null, what, ": a tensor needs a dtype, got ",
           ir::toString(dtype));
}

//! Checks sizes and strides are non-negative and of equal rank; returns numel.
int64_t checkLayout(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                    int64_t storageOffset, const char* what) {
  FL_CHECK(sizes.size() == strides.size(), what, ": ", sizes.size(), " sizes but ", strides.size(),
           " strides (sizes ", formatList(sizes), ", strides ", formatList(strides), ")");
  int64_t numel = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    FL_CHECK(sizes[i] >= 0, what, ": sizes must be non-negative, got ", formatList(sizes));
    FL_CHECK(strides[i] >= 0, what, ": strides must be non-negative, got ", formatList(strides));
    numel = checkedMul(numel, sizes[i], what);
  }
  FL_CHECK(storageOffset >= 0, what, ": the storage offset must be non-negative, got ",
           storageOffset);
  return numel;
}

//! Elements from the first to one past the last addressed element (0 when empty).
int64_t spanOf(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
               int64_t numel, const char* what) {
  if (numel == 0) return 0;
  int64_t span = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    span = checkedAdd(span, checkedMul(sizes[i] - 1, strides[i], what), what);
  }
  return span;
}

std::shared_ptr<std::byte> allocateHost(int64_t bytes) {
  // aligned_alloc wants a multiple of the alignment; never ask for zero so an
  // empty tensor still has a distinct, non-null base.
  const int64_t rounded =
      (std::max<int64_t>(bytes, 1) + kAlignmentBytes - 1) / kAlignmentBytes * kAlignmentBytes;
  void* memory = std::aligned_alloc(kAlignmentBytes, static_cast<size_t>(rounded));
  FL_CHECK(memory != nullptr, "could not allocate ", bytes, " bytes of host memory for a tensor");
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(memory),
                                    [](std::byte* p) { std::free(p); });
}

//! Writes `src`'s elements in logical order, converted, to contiguous `out`.
template <class Dst, class Src>
void castCopy(const Tensor& src, Dst* out) {
  const Src* in = static_cast<const Src*>(src.data());
  const int64_t numel = src.numel();
  if (src.isContiguous()) {
    for (int64_t i = 0; i < numel; ++i) out[i] = castElement<Dst>(in[i]);
    return;
  }
  int64_t i = 0;
  forEachOffset(src.sizes(), src.strides(),
                [&](int64_t offset) { out[i++] = castElement<Dst>(in[offset]); });
}

Tensor convertedCopy(const Tensor& src, ir::DataType dtype) {
  Tensor result = Tensor::empty(dtype, src.sizes());
  dispatchElementType(dtype, [&]<class Dst>(TypeTag<Dst>) {
    dispatchElementType(src.dtype(), [&]<class Src>(TypeTag<Src>) {
      castCopy<Dst, Src>(src, result.dataAs<Dst>());
    });
  });
  return result;
}

}  // namespace

std::string Device::toString() const {
  return kind == DeviceKind::Cpu ? "cpu" : "cuda:" + std::to_string(index);
}

Tensor::Tensor(std::shared_ptr<std::byte> storage, std::byte* storageBase, int64_t storageBytes,
               ir::DataType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
               int64_t storageOffset, Device device)
    : storage_(std::move(storage)),
      storageBase_(storageBase),
      storageBytes_(storageBytes),
      dtype_(dtype),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      storageOffset_(storageOffset),
      numel_(std::accumulate(sizes_.begin(), sizes_.end(), int64_t{1}, std::multiplies<>())),
      device_(device) {}

std::vector<int64_t> Tensor::contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride = checkedMul(stride, std::max<int64_t>(sizes[i], 1), "Tensor::contiguousStrides");
  }
  return strides;
}

Tensor Tensor::empty(ir::DataType dtype, std::vector<int64_t> sizes) {
  for (int64_t size : sizes) {
    FL_CHECK(size >= 0, "Tensor::empty: sizes must be non-negative, got ", formatList(sizes));
  }
  std::vector<int64_t> strides = contiguousStrides(sizes);
  return emptyStrided(dtype, std::move(sizes), std::move(strides));
}

Tensor Tensor::emptyStrided(ir::DataType dtype, std::vector<int64_t> sizes,
                            std::vector<int64_t> strides) {
  const char* what = "Tensor::emptyStrided";
  checkDtype(dtype, what);
  const int64_t numel = checkLayout(sizes, strides, 0, what);
  const int64_t bytes =
      checkedMul(spanOf(sizes, strides, numel, what), ir::sizeInBytes(dtype), what);
  std::shared_ptr<std::byte> storage = allocateHost(bytes);
  std::byte* base = storage.get();
  return Tensor(std::move(storage), base, bytes, dtype, std::move(sizes), std::move(strides), 0,
                Device{});
}

Tensor Tensor::borrow(void* data, ir::DataType dtype, std::vector<int64_t> sizes,
                      std::vector<int64_t> strides, int64_t storageOffset, DeviceKind deviceKind,
                      int deviceIndex) {
  const char* what = "Tensor::borrow";
  checkDtype(dtype, what);
  const int64_t numel = checkLayout(sizes, strides, storageOffset, what);
  FL_CHECK(data != nullptr || numel == 0, what, ": null data pointer for a tensor with ", numel,
           " elements");
  FL_CHECK(deviceIndex >= 0, what, ": negative device index ", deviceIndex);
  FL_CHECK(deviceKind == DeviceKind::Cuda || deviceIndex == 0, what,
           ": the CPU has no device index, got ", deviceIndex);
  return Tensor(nullptr, static_cast<std::byte*>(data), -1, dtype, std::move(sizes),
                std::move(strides), storageOffset, Device{deviceKind, deviceIndex});
}

Tensor Tensor::metadata(ir::DataType dtype, std::vector<int64_t> sizes,
                        std::vector<int64_t> strides, int64_t storageOffset, Device device) {
  const char* what = "Tensor::metadata";
  checkDtype(dtype, what);
  checkLayout(sizes, strides, storageOffset, what);
  Tensor t(nullptr, nullptr, -1, dtype, std::move(sizes), std::move(strides), storageOffset,
           device);
  t.metadataOnly_ = true;
  return t;
}

bool Tensor::isContiguous() const {
  if (numel_ == 0) return true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) return false;
    expected *= sizes_[i];
  }
  return true;
}

Tensor Tensor::asStrided(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                         int64_t storageOffset) const {
  const char* what = "Tensor::asStrided";
  FL_ASSERT(defined(), "asStrided on an undefined tensor");
  const int64_t numel = checkLayout(sizes, strides, storageOffset, what);
  if (isOwning()) {
    const int64_t endElement = checkedAdd(storageOffset, spanOf(sizes, strides, numel, what), what);
    const int64_t storageElements = storageBytes_ / elementSize();
    FL_CHECK(endElement <= storageElements, what, ": sizes ", formatList(sizes), ", strides ",
             formatList(strides), " and offset ", storageOffset, " address up to element ",
             endElement, " but the storage holds ", storageElements, " elements");
  }
  return Tensor(storage_, storageBase_, storageBytes_, dtype_, std::move(sizes), std::move(strides),
                storageOffset, device_);
}

Tensor Tensor::permute(const std::vector<int64_t>& dims) const {
  FL_CHECK(static_cast<int64_t>(dims.size()) == dim(), "Tensor::permute: ", dims.size(),
           " dims given for a ", dim(), "-dim tensor: ", formatList(dims));
  std::vector<int64_t> sizes(dims.size());
  std::vector<int64_t> strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i] < 0 ? dims[i] + dim() : dims[i];
    FL_CHECK(d >= 0 && d < dim() && !seen[d], "Tensor::permute: ", formatList(dims),
             " is not a permutation of the ", dim(), " dims");
    seen[d] = true;
    sizes[i] = sizes_[d];
    strides[i] = strides_[d];
  }
  return Tensor(storage_, storageBase_, storageBytes_, dtype_, std::move(sizes), std::move(strides),
                storageOffset_, device_);
}

Tensor Tensor::contiguous() const {
  checkCpu("Tensor::contiguous");
  return isContiguous() ? *this : convertedCopy(*this, dtype_);
}

Tensor Tensor::clone() const {
  checkCpu("Tensor::clone");
  return convertedCopy(*this, dtype_);
}

Tensor Tensor::to(ir::DataType dtype) const {
  checkCpu("Tensor::to");
  checkDtype(dtype, "Tensor::to");
  return dtype == dtype_ ? *this : convertedCopy(*this, dtype);
}

void Tensor::fill(double value) {
  checkCpu("Tensor::fill");
  dispatchElementType(dtype_, [&]<class T>(TypeTag<T>) {
    const T element = castElement<T>(value);
    T* elements = dataAs<T>();
    if (isContiguous()) {
      std::fill(elements, elements + numel_, element);
      return;
    }
    forEachOffset(sizes_, strides_, [&](int64_t offset) { elements[offset] = element; });
  });
}

double Tensor::item(const std::vector<int64_t>& index) const {
  checkCpu("Tensor::item");
  const int64_t offset = offsetOf(index, "Tensor::item");
  return dispatchElementType(
      dtype_, [&]<class T>(TypeTag<T>) { return castElement<double>(dataAs<T>()[offset]); });
}

void Tensor::set(const std::vector<int64_t>& index, double value) {
  checkCpu("Tensor::set");
  const int64_t offset = offsetOf(index, "Tensor::set");
  dispatchElementType(dtype_,
                      [&]<class T>(TypeTag<T>) { dataAs<T>()[offset] = castElement<T>(value); });
}

std::string Tensor::toString() const {
  if (!defined()) return "Tensor(undefined)";
  std::ostringstream out;
  out << "Tensor(" << ir::shortName(dtype_) << formatList(sizes_)
      << ", strides=" << formatList(strides_) << ", offset=" << storageOffset_ << ", "
      << device_.toString() << (isOwning() ? "" : ", borrowed") << ")";
  return out.str();
}

int64_t Tensor::offsetOf(const std::vector<int64_t>& index, const char* what) const {
  FL_CHECK(static_cast<int64_t>(index.size()) == dim(), what, ": index ", formatList(index),
           " has ", index.size(), " entries for a ", dim(), "-dim tensor");
  int64_t offset = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    FL_CHECK(index[i] >= 0 && index[i] < sizes_[i], what, ": index ", formatList(index),
             " is out of bounds for sizes ", formatList(sizes_));
    offset += index[i] * strides_[i];
  }
  return offset;
}

void Tensor::checkCpu(const char* what) const {
  FL_ASSERT(defined(), what, " on an undefined tensor");
  FL_CHECK(isCpu(), what, " needs a CPU tensor, got ", toString());
}

Tensor metadataOnly(ir::DataType dtype, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                    int64_t storageOffset) {
  return Tensor::metadata(dtype, std::move(sizes), std::move(strides), storageOffset,
                          Device{DeviceKind::Cuda, 0});
}

void copyInto(const Tensor& from, Tensor& to) {
  FL_ASSERT(from.dtype() == to.dtype() && from.sizes() == to.sizes(), "copyInto between ",
            from.toString(), " and ", to.toString());
  const Tensor src = from.contiguous();
  const size_t bytes = ir::sizeInBytes(to.dtype());
  const auto* in = static_cast<const std::byte*>(src.data());
  auto* out = static_cast<std::byte*>(to.data());
  int64_t n = 0;
  forEachOffset(to.sizes(), to.strides(), [&](int64_t offset) {
    std::memcpy(out + offset * bytes, in + (n++) * bytes, bytes);
  });
}

}  // namespace fuserlab::runtime
