#include "core/tensor/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/ir/error.h"
#include "core/tensor/random_fill.h"
#include "core/tensor/slice_view.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

TEST(TensorTest, EmptyIsContiguousAndAligned) {
  Tensor t = Tensor::empty(DataType::Float, {2, 3, 4});
  EXPECT_EQ(t.dim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(t.storageOffset(), 0);
  EXPECT_EQ(t.dtype(), DataType::Float);
  EXPECT_EQ(t.device(), (Device{DeviceKind::Cpu, 0}));
  EXPECT_TRUE(t.isContiguous());
  EXPECT_TRUE(t.isOwning());
  EXPECT_EQ(t.storageBytes(), 24 * 4);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(t.toString(), "Tensor(f32[2, 3, 4], strides=[12, 4, 1], offset=0, cpu)");
}

TEST(TensorTest, ContiguousStridesTreatZeroExtentAsOne) {
  EXPECT_EQ(Tensor::contiguousStrides({2, 0, 3}), (std::vector<int64_t>{3, 3, 1}));
  EXPECT_EQ(Tensor::contiguousStrides({}), (std::vector<int64_t>{}));
}

TEST(TensorTest, NegativeSizesAreUserErrors) {
  EXPECT_THROW(Tensor::empty(DataType::Float, {2, -1}), UserError);
  EXPECT_THROW(Tensor::emptyStrided(DataType::Float, {2}, {-1}), UserError);
  EXPECT_THROW(Tensor::emptyStrided(DataType::Float, {2, 2}, {1}), UserError);
  EXPECT_THROW(Tensor::empty(DataType::Null, {2}), UserError);
  EXPECT_THROW(Tensor::empty(DataType::Float, {int64_t{1} << 40, int64_t{1} << 40}), UserError);
}

TEST(TensorTest, EmptyStridedAllocatesExactlyTheSpan) {
  // Column-major 3x4: the span is (3-1)*1 + (4-1)*3 + 1 = 12 elements.
  Tensor t = Tensor::emptyStrided(DataType::Double, {3, 4}, {1, 3});
  EXPECT_EQ(t.storageBytes(), 12 * 8);
  EXPECT_FALSE(t.isContiguous());
  // A broadcast dim (stride 0) needs no storage of its own.
  Tensor expanded = Tensor::emptyStrided(DataType::Half, {5, 4}, {0, 1});
  EXPECT_EQ(expanded.storageBytes(), 4 * 2);
  Tensor gap = Tensor::emptyStrided(DataType::Int32, {2, 3}, {10, 1});
  EXPECT_EQ(gap.storageBytes(), 13 * 4);
}

TEST(TensorTest, ZeroSizeAndZeroDimTensorsWork) {
  Tensor empty = Tensor::empty(DataType::BFloat16, {3, 0, 2});
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_TRUE(empty.isContiguous());
  EXPECT_EQ(empty.storageBytes(), 0);
  empty.fill(1.0);
  EXPECT_EQ(empty.clone().numel(), 0);
  EXPECT_EQ(empty.permute({2, 0, 1}).contiguous().sizes(), (std::vector<int64_t>{2, 3, 0}));
  EXPECT_EQ(empty.to(DataType::Float).numel(), 0);
  EXPECT_THROW(empty.item({0, 0, 0}), UserError);

  Tensor scalar = Tensor::empty(DataType::Int, {});
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.numel(), 1);
  scalar.set({}, 42);
  EXPECT_EQ(scalar.item({}), 42.0);
  EXPECT_EQ(scalar.to(DataType::Half).item({}), 42.0);
}

TEST(TensorTest, ViewsShareStorage) {
  Tensor base = Tensor::empty(DataType::Float, {4, 5});
  fillArange(base);
  Tensor view = base.asStrided({2, 2}, {5, 1}, 6);  // rows 1-2, cols 1-2
  EXPECT_TRUE(view.sharesStorageWith(base));
  EXPECT_EQ(view.item({0, 0}), 6.0);
  EXPECT_EQ(view.item({1, 1}), 12.0);
  EXPECT_EQ(view.data(), static_cast<float*>(base.data()) + 6);
  view.set({1, 0}, -1.0);
  EXPECT_EQ(base.item({2, 1}), -1.0);

  Tensor copy = base;  // a handle copy, not a deep copy
  copy.set({0, 0}, 99.0);
  EXPECT_EQ(base.item({0, 0}), 99.0);
  Tensor cloned = base.clone();
  EXPECT_FALSE(cloned.sharesStorageWith(base));
  cloned.set({0, 0}, 7.0);
  EXPECT_EQ(base.item({0, 0}), 99.0);
}

TEST(TensorTest, ViewKeepsStorageAliveAfterBaseIsGone) {
  Tensor view;
  {
    Tensor base = Tensor::empty(DataType::Int32, {8});
    fillArange(base);
    view = base.asStrided({4}, {2}, 1);
  }
  EXPECT_EQ(view.item({3}), 7.0);
}

TEST(TensorTest, AsStridedOutsideStorageIsUserError) {
  Tensor base = Tensor::empty(DataType::Float, {4, 5});  // 20 elements
  EXPECT_NO_THROW(base.asStrided({4, 5}, {5, 1}, 0));
  EXPECT_NO_THROW(base.asStrided({1}, {1}, 19));
  EXPECT_NO_THROW(base.asStrided({0}, {1}, 20));
  EXPECT_THROW(base.asStrided({1}, {1}, 20), UserError);
  EXPECT_THROW(base.asStrided({4, 5}, {5, 1}, 1), UserError);
  EXPECT_NO_THROW(base.asStrided({3, 4}, {8, 1}, 0));          // last element 19
  EXPECT_THROW(base.asStrided({3, 4}, {9, 1}, 0), UserError);  // last element 21
  EXPECT_THROW(base.asStrided({2}, {1}, -1), UserError);
  EXPECT_THROW(base.asStrided({2}, {-1}, 5), UserError);
}

TEST(TensorTest, PermuteReordersSizesAndStrides) {
  Tensor t = Tensor::empty(DataType::Double, {2, 3, 4});
  fillArange(t);
  Tensor p = t.permute({2, 0, 1});
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(p.strides(), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_TRUE(p.sharesStorageWith(t));
  EXPECT_FALSE(p.isContiguous());
  EXPECT_EQ(p.item({3, 1, 2}), t.item({1, 2, 3}));
  EXPECT_EQ(t.permute({-1, 0, 1}).sizes(), p.sizes());
  EXPECT_THROW(t.permute({0, 0, 1}), UserError);
  EXPECT_THROW(t.permute({0, 1}), UserError);
  EXPECT_THROW(t.permute({0, 1, 3}), UserError);
}

TEST(TensorTest, ContiguousCopiesAPermutedTensorInLogicalOrder) {
  Tensor t = Tensor::empty(DataType::Int, {2, 3, 4});
  fillArange(t);
  Tensor p = t.permute({2, 0, 1});
  Tensor c = p.contiguous();
  EXPECT_TRUE(c.isContiguous());
  EXPECT_FALSE(c.sharesStorageWith(t));
  EXPECT_EQ(c.sizes(), (std::vector<int64_t>{4, 2, 3}));
  const int64_t* values = c.dataAs<int64_t>();
  int64_t i = 0;
  for (int64_t a = 0; a < 4; ++a) {
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t d = 0; d < 3; ++d) {
        EXPECT_EQ(values[i++], b * 12 + d * 4 + a);
      }
    }
  }
  // Already contiguous: no copy.
  EXPECT_TRUE(t.contiguous().sharesStorageWith(t));
  // Size-1 dims do not break contiguity whatever their stride.
  EXPECT_TRUE(t.asStrided({1, 24}, {999, 1}, 0).isContiguous());
}

TEST(TensorTest, ToCastsWithTheTargetRounding) {
  Tensor t = Tensor::empty(DataType::Double, {5});
  const std::vector<double> values = {1.0 + 0x1.0p-8 + 0x1.0p-40, -2.7, 70000.0, std::nan(""), 0.0};
  for (int64_t i = 0; i < 5; ++i) t.set({i}, values[i]);
  Tensor bf16 = t.to(DataType::BFloat16);
  EXPECT_EQ(bf16.item({0}), 1.0 + 0x1.0p-7);  // one rounding, not two
  Tensor half = t.to(DataType::Half);
  EXPECT_TRUE(std::isinf(half.item({2})));
  EXPECT_TRUE(std::isnan(half.item({3})));
  Tensor ints = t.to(DataType::Int32);
  EXPECT_EQ(ints.item({1}), -2.0);
  EXPECT_EQ(ints.item({3}), 0.0);
  Tensor bools = t.to(DataType::Bool);
  EXPECT_EQ(bools.item({3}), 1.0);
  EXPECT_EQ(bools.item({4}), 0.0);
  EXPECT_TRUE(t.to(DataType::Double).sharesStorageWith(t));
  // A non-contiguous source converts in logical order.
  Tensor m = Tensor::empty(DataType::Float, {2, 3});
  fillArange(m);
  Tensor mt = m.permute({1, 0}).to(DataType::Int32);
  EXPECT_EQ(mt.item({2, 1}), 5.0);
  EXPECT_EQ(mt.item({1, 0}), 1.0);
}

TEST(TensorTest, SetAndItemRoundToTheDtype) {
  Tensor t = Tensor::empty(DataType::BFloat16, {2});
  t.set({0}, 1.0 + 0x1.0p-8);  // tie: rounds to even
  EXPECT_EQ(t.item({0}), 1.0);
  Tensor b = Tensor::empty(DataType::Bool, {1});
  b.set({0}, 0.5);
  EXPECT_EQ(b.dataAs<uint8_t>()[0], 1);
  EXPECT_THROW(t.item({2}), UserError);
  EXPECT_THROW(t.item({0, 0}), UserError);
  EXPECT_THROW(t.dataAs<float>(), InternalError);
}

TEST(TensorTest, FillWritesEveryElementOfAStridedView) {
  Tensor base = Tensor::empty(DataType::Float, {4, 4});
  base.fill(0.0);
  Tensor column = base.asStrided({4}, {4}, 1);
  column.fill(3.0);
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 4; ++c) {
      EXPECT_EQ(base.item({r, c}), c == 1 ? 3.0 : 0.0);
    }
  }
}

TEST(TensorTest, BorrowedTensorsDoNotOwn) {
  std::vector<float> buffer = {0, 1, 2, 3, 4, 5, 6, 7};
  Tensor t = Tensor::borrow(buffer.data(), DataType::Float, {2, 3}, {3, 1}, 2, DeviceKind::Cpu);
  EXPECT_FALSE(t.isOwning());
  EXPECT_EQ(t.storageBytes(), -1);
  EXPECT_EQ(t.item({0, 0}), 2.0);
  EXPECT_EQ(t.data(), buffer.data() + 2);
  t.set({1, 2}, -7.0);
  EXPECT_EQ(buffer[7], -7.0f);
  EXPECT_TRUE(t.clone().isOwning());

  int fakeDevicePointer = 0;
  Tensor cuda =
      Tensor::borrow(&fakeDevicePointer, DataType::Half, {4}, {1}, 0, DeviceKind::Cuda, 1);
  EXPECT_EQ(cuda.device().toString(), "cuda:1");
  EXPECT_FALSE(cuda.isCpu());
  EXPECT_THROW(cuda.item({0}), UserError);
  EXPECT_THROW(cuda.contiguous(), UserError);
  EXPECT_THROW(Tensor::borrow(nullptr, DataType::Float, {2}, {1}, 0, DeviceKind::Cpu), UserError);
  EXPECT_NO_THROW(Tensor::borrow(nullptr, DataType::Float, {0}, {1}, 0, DeviceKind::Cpu));
}

TEST(TensorTest, UndefinedTensor) {
  Tensor t;
  EXPECT_FALSE(t.defined());
  EXPECT_EQ(t.toString(), "Tensor(undefined)");
}

// One slice rule for the CPU reference and the GPU's views: Python's
// bounds (negative from the end, clamped), a step, an empty range.
TEST(TensorTest, SliceViewAxisBoundsAsPythonDoes) {
  std::vector<int64_t> sizes = {10, 6}, strides = {6, 1};
  int64_t offset = 0;
  sliceViewAxis(sizes, strides, offset, 0, -8, 100, 3, "slice");  // [2:10:3]: 2, 5, 8
  EXPECT_EQ(sizes, (std::vector<int64_t>{3, 6}));
  EXPECT_EQ(strides, (std::vector<int64_t>{18, 1}));
  EXPECT_EQ(offset, 12);
  sliceViewAxis(sizes, strides, offset, 1, 4, 2, 1, "slice");  // empty
  EXPECT_EQ(sizes[1], 0);
  EXPECT_EQ(offset, 12);
  EXPECT_THROW(sliceViewAxis(sizes, strides, offset, 0, 0, 1, 0, "slice"), UserError);
}

}  // namespace
}  // namespace fuserlab::runtime
