// scatter and index_put_accumulate on the GPU (the indexed-write kernel,
// core/codegen/scatter_emitter.h) against the CPU reference, on random
// non-zero inputs. A scatter's indices are unique along the scattered axis
// (a repeated position is undefined in torch: the reference takes the last
// write, the GPU any); index_put_accumulate's repeat on purpose, and its
// float sums, added atomically in any order, are compared within the
// reference check's tolerance. Each test asserts that the kernel ran: they
// were CPU-reference-only segments before.
#include <algorithm>
#include <numeric>
#include <random>

#include "core/tensor/random_fill.h"
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

class GpuIndexedWriteTest : public GpuTest {
 protected:
  //! An index [sizes] of Int values in [0, extent), all different along
  //! `dim` (a random permutation's first sizes[dim] entries per line).
  Tensor uniqueIndex(std::vector<int64_t> sizes, int64_t dim, int64_t extent) {
    Tensor t = Tensor::empty(DataType::Int, sizes);
    int64_t lines = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (static_cast<int64_t>(d) != dim) lines *= sizes[d];
    }
    std::vector<int64_t> permutation(static_cast<size_t>(extent));
    for (int64_t line = 0; line < lines; ++line) {
      std::iota(permutation.begin(), permutation.end(), 0);
      std::shuffle(permutation.begin(), permutation.end(), generator_);
      // The line's position along the other axes, the innermost fastest.
      std::vector<int64_t> at(sizes.size(), 0);
      int64_t rest = line;
      for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
        if (d == dim) continue;
        at[static_cast<size_t>(d)] = rest % sizes[static_cast<size_t>(d)];
        rest /= sizes[static_cast<size_t>(d)];
      }
      for (int64_t j = 0; j < sizes[static_cast<size_t>(dim)]; ++j) {
        at[static_cast<size_t>(dim)] = j;
        t.set(at, static_cast<double>(permutation[static_cast<size_t>(j)]));
      }
    }
    return t;
  }

  //! Random indices in [low, high), repeats likely.
  Tensor anyIndex(DataType dtype, std::vector<int64_t> sizes, int64_t low, int64_t high) {
    Tensor t = Tensor::empty(dtype, std::move(sizes));
    runtime::fillRandint(t, ++seed_, low, high);
    return t;
  }

  void expectRan() { ASSERT_FALSE(unavailable()) << unavailableReason(); }

 private:
  std::mt19937 generator_{20261129};
  uint64_t seed_ = 5000;
};

TEST_F(GpuIndexedWriteTest, ScatterATensorSrcAlongEitherAxis) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
I1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
I3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T5 = fd.ops.scatter(T0, I1, T2, dim=0)
fd.add_output(fd.ops.sigmoid(T5))
T6 = fd.ops.cast(T0, dtype=DataType.BFloat16)
fd.add_output(fd.ops.scatter(T6, I3, T4, 1))
)");
  // src larger than the index (torch reads its leading part).
  runAndCheck({random(DataType::Float, {300, 48}), uniqueIndex({120, 40}, 0, 300),
               random(DataType::Float, {130, 48}), uniqueIndex({300, 7}, 1, 48),
               random(DataType::BFloat16, {300, 7})});
  expectRan();
}

// A constant src, a scalar-input src, and the legacy one-hot: zeros from
// full, labels broadcast to a column, scattered as 1.0, then used.
TEST_F(GpuIndexedWriteTest, ScatterAScalarSrc) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
I1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
S2 = fd.define_scalar(None, dtype=DataType.Double)
I3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
fd.add_output(fd.ops.scatter(T0, I1, S2, 1))
fd.add_output(fd.ops.scatter(T0, I1, -2.5, dim=1))
T4 = fd.ops.broadcast_in_dim(I3, shape=[T0.size(0), 1], broadcast_dims=[0])
T5 = fd.ops.full(shape=[T0.size(0), T0.size(1)], fill_value=0.0, dtype=DataType.Float)
T6 = fd.ops.scatter(T5, T4, 1.0, 1)
fd.add_output(T6)
fd.add_output(fd.ops.sum(fd.ops.mul(T0, T6), dims=[1]))
)");
  runAndCheck({random(DataType::Float, {500, 120}), uniqueIndex({500, 9}, 1, 120),
               ir::ScalarValue(1.5), anyIndex(DataType::Int, {500}, 0, 120)});
  expectRan();
}

// Embedding backward: rows of a gradient added into a table at token ids
// that repeat, Int ids into Float, Int32 ids into BFloat16 (summed in float
// and rounded once), and a value row of one column broadcast.
TEST_F(GpuIndexedWriteTest, IndexPutAccumulateAddsRepeatedRows) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
I1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
I4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int32, is_cpu=False)
T5 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T6 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False)
fd.add_output(fd.ops.index_put_accumulate(T0, I1, T2))
fd.add_output(fd.ops.index_put_accumulate(T3, I4, T5))
fd.add_output(fd.ops.index_put_accumulate(acc=T0, index=I1, value=T6))
)");
  runAndCheck({random(DataType::Float, {1000, 96}), anyIndex(DataType::Int, {3000}, 0, 1000),
               random(DataType::Float, {3000, 96}), random(DataType::BFloat16, {64, 33}),
               anyIndex(DataType::Int32, {700}, 0, 64), random(DataType::BFloat16, {700, 33}),
               random(DataType::Float, {3000, 1})});
  expectRan();
}

// Integers add exactly whatever the order; negative ids count from the end.
TEST_F(GpuIndexedWriteTest, IndexPutAccumulateOfIntegersIsExact) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Int, is_cpu=False)
I1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
T2 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Int, is_cpu=False)
T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
fd.add_output(fd.ops.index_put_accumulate(T0, I1, T2))
I5 = fd.ops.cast(I1, dtype=DataType.Int32)
fd.add_output(fd.ops.index_put_accumulate(T3, I5, T4))
)");
  runAndCheck({random(DataType::Int, {40, 3, 5}), anyIndex(DataType::Int, {900}, -40, 40),
               random(DataType::Int, {900, 3, 5}), random(DataType::Int32, {40, 17}),
               random(DataType::Int32, {900, 17})});
  expectRan();
}

}  // namespace
}  // namespace fuserlab::gpu_test
