// embedding_fwd on the GPU against the CPU reference: without max_norm it is
// an index_select of the weight's rows by the flattened indices, reshaped,
// which kernel schedulers run (it was CPU-reference-only before). Indices
// are random over the whole table; rows are random non-zero values.
#include "core/tensor/random_fill.h"
#include "tests/gpu/gpu_fixture.h"

namespace fuserlab::gpu_test {
namespace {

class GpuEmbeddingTest : public GpuTest {
 protected:
  //! Random indices in [0, rows).
  static Tensor indices(DataType dtype, std::vector<int64_t> sizes, int64_t rows, uint64_t seed) {
    Tensor t = Tensor::empty(dtype, std::move(sizes));
    runtime::fillRandint(t, seed, 0, rows);
    return t;
  }
};

// As Thunder sends it: [batch, seq] Int ids into a bf16 table, the rows
// output and a per-token sum of squares beside it.
TEST_F(GpuEmbeddingTest, LookUpTokensThenReduceEachRow) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
S2 = fd.define_scalar(2.00000, dtype=DataType.Double)
S3 = fd.define_scalar(False, dtype=DataType.Bool)
T4 = fd.ops.embedding_fwd(T0, T1, None, None, S2, S3, S3)
T5 = fd.ops.cast(T4, dtype=DataType.Float)
T6 = fd.ops.sum(fd.ops.mul(T5, T5), dims=[2], keepdim=False, dtype=DataType.Null)
fd.add_output(T4)
fd.add_output(T6)
)");
  runAndCheck({indices(DataType::Int, {4, 33}, 1000, 11), random(DataType::BFloat16, {1000, 96})});
  ASSERT_FALSE(unavailable()) << unavailableReason();
}

// Int32 ids of three axes (one of size 1), padding_idx given (the forward
// ignores it), a Float table with rows not a multiple of the vector width,
// and a scale after the lookup.
TEST_F(GpuEmbeddingTest, Int32IdsOfThreeAxesWithPaddingIdx) {
  define(R"(
T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True], dtype=DataType.Int32, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T2 = fd.ops.embedding_fwd(input=T0, weight=T1, padding_idx=0)
fd.add_output(fd.ops.mul(T2, 3.0))
)");
  runAndCheck({indices(DataType::Int32, {5, 1, 17}, 300, 12), random(DataType::Float, {300, 13})});
  ASSERT_FALSE(unavailable()) << unavailableReason();
}

// 1-D ids: the index_select alone, over a table wider than a block.
TEST_F(GpuEmbeddingTest, OneDimIdsIntoAWideTable) {
  define(R"(
T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
fd.add_output(fd.ops.embedding_fwd(T0, T1))
)");
  runAndCheck({indices(DataType::Int, {257}, 64, 13), random(DataType::Half, {64, 2048})});
  ASSERT_FALSE(unavailable()) << unavailableReason();
}

}  // namespace
}  // namespace fuserlab::gpu_test
