// Inner persistent fusions on the GPU against the CPU reference: softmax
// and layer norm (forward and backward) over rows short enough for
// registers and long enough to need shared memory, rows of odd lengths,
// max and min reductions with NaN, approximate exp, cross-entropy's label
// gathered in the row kernel, a normalization backward with its weight
// gradients in one combined kernel. Each skips, saying so,
// while the segment's emitter is unavailable.
#include <limits>

#include "core/tensor/float16.h"
#include "core/tensor/random_fill.h"
#include "tests/gpu/gpu_fixture.h"
#include "tests/test_scripts.h"

namespace fuserlab::gpu_test {
namespace {

class GpuInnerPersistentTest : public GpuTest {};

std::string softmax(int64_t rows, int64_t cols, const std::string& outputDtype = "BFloat16") {
  const std::string row = "[" + std::to_string(rows) + ", 1]";
  const std::string full = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  return "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
         "is_cpu=False)\n"
         "T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "T2 = fd.ops.max(T1, dims=[1], keepdim=False, dtype=DataType.Null)\n"
         "T3 = fd.ops.broadcast_in_dim(T2, shape=" +
         row +
         ", broadcast_dims=[0])\n"
         "T4 = fd.ops.broadcast_in_dim(T3, shape=" +
         full +
         ", broadcast_dims=[0, 1])\n"
         "T5 = fd.ops.sub(T1, T4)\n"
         "T6 = fd.ops.exp(T5)\n"
         "T7 = fd.ops.sum(T6, dims=[1], keepdim=False, dtype=DataType.Null)\n"
         "T8 = fd.ops.broadcast_in_dim(T7, shape=" +
         row +
         ", broadcast_dims=[0])\n"
         "T9 = fd.ops.broadcast_in_dim(T8, shape=" +
         full +
         ", broadcast_dims=[0, 1])\n"
         "T10 = fd.ops.div(T6, T9)\n"
         "T11 = fd.ops.cast(T10, dtype=DataType." +
         outputDtype +
         ")\n"
         "fd.add_output(T11)\n";
}

// Max and min reductions take NaN from any element (torch.amax): rows of
// 256 (softmax's inner persistent kernel, the max over a thread's registers
// and the warp butterfly) and of 4099 (a plain inner reduction), with a NaN
// at the first, a middle and the last element of some rows. Those rows'
// maxima, minima and softmax are NaN, every other row matches the reference.
TEST_F(GpuInnerPersistentTest, MaxAndMinReductionsPropagateNaN) {
  for (int64_t cols : {int64_t{256}, int64_t{4099}}) {
    const int64_t rows = 1024;
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    Tensor x = random(DataType::BFloat16, {rows, cols});
    const std::vector<std::pair<int64_t, int64_t>> nans = {
        {3, 0}, {100, cols / 2}, {101, cols - 1}, {rows - 1, 7}};
    auto* data = x.dataAs<runtime::BFloat16>();
    for (const auto& [r, c] : nans) {
      data[r * cols + c] = runtime::BFloat16::fromFloat(std::numeric_limits<float>::quiet_NaN());
    }
    auto nanRow = [&](int64_t r) {
      for (const auto& [nr, c] : nans) {
        if (nr == r) return true;
      }
      return false;
    };
    define(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.max(T1, dims=[1], keepdim=False, dtype=DataType.Null)
T3 = fd.ops.min(T1, dims=[1], keepdim=False, dtype=DataType.Null)
fd.add_output(T2)
fd.add_output(T3)
)");
    runAndCheck({x});
    FL_SKIP_IF_UNAVAILABLE();
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_EQ(std::isnan(lastOutputs().at(0).dataAs<float>()[r]), nanRow(r)) << "row " << r;
      EXPECT_EQ(std::isnan(lastOutputs().at(1).dataAs<float>()[r]), nanRow(r)) << "row " << r;
    }
    define(softmax(rows, cols));
    runAndCheck({x});
    FL_SKIP_IF_UNAVAILABLE();
    const auto* y = lastOutputs().at(0).dataAs<runtime::BFloat16>();
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_EQ(std::isnan(y[r * cols + 5].toFloat()), nanRow(r)) << "row " << r;
    }
  }
}

TEST_F(GpuInnerPersistentTest, SoftmaxInnerPersistentOddRows) {
  for (std::pair<int64_t, int64_t> size :
       {std::pair<int64_t, int64_t>{1000, 1023}, {3, 4097}, {4096, 128}}) {
    SCOPED_TRACE(std::to_string(size.first) + "x" + std::to_string(size.second));
    define(softmax(size.first, size.second));
    runAndCheck({random(DataType::BFloat16, {size.first, size.second})});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuInnerPersistentTest, SoftmaxApproximateExpWithinTolerance) {
  // Half and bf16 outputs use fl::exp_approx, float keeps expf; a wide input
  // range gives exps from 1 down to underflow.
  for (const char* dtype : {"BFloat16", "Half", "Float"}) {
    SCOPED_TRACE(dtype);
    define(softmax(512, 4096, dtype));
    Tensor x = Tensor::empty(DataType::BFloat16, {512, 4096});
    runtime::fillUniform(x, 31, -90.0, 90.0);
    runAndCheck({x});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

TEST_F(GpuInnerPersistentTest, SoftmaxRowLongEnoughForSharedMemoryPersistence) {
  // 64K floats per row (256 KiB) do not fit in registers.
  define(softmax(64, 65536));
  runAndCheck({random(DataType::BFloat16, {64, 65536})});
  FL_SKIP_IF_UNAVAILABLE();
}

std::string layerNorm(int64_t rows, int64_t cols) {
  const std::string row = "[" + std::to_string(rows) + ", 1]";
  const std::string full = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  return "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
         "is_cpu=False)\n"
         "T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, "
         "is_cpu=False)\n"
         "T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, "
         "is_cpu=False)\n"
         "T3 = fd.ops.cast(T0, dtype=DataType.Float)\n"
         "T4, T5 = fd.ops.var_mean(T3, dims=[1], correction=0, keepdim=False)\n"
         "T6 = fd.ops.broadcast_in_dim(T4, shape=" +
         row +
         ", broadcast_dims=[0])\n"
         "T7 = fd.ops.broadcast_in_dim(T5, shape=" +
         row +
         ", broadcast_dims=[0])\n"
         "S8 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)\n"
         "T9 = fd.ops.add(T6, S8)\n"
         "T10 = fd.ops.rsqrt(T9)\n"
         "T11 = fd.ops.broadcast_in_dim(T7, shape=" +
         full +
         ", broadcast_dims=[0, 1])\n"
         "T12 = fd.ops.sub(T3, T11)\n"
         "T13 = fd.ops.broadcast_in_dim(T10, shape=" +
         full +
         ", broadcast_dims=[0, 1])\n"
         "T14 = fd.ops.mul(T12, T13)\n"
         "T15 = fd.ops.broadcast_in_dim(T1, shape=" +
         full +
         ", broadcast_dims=[1])\n"
         "T16 = fd.ops.cast(T15, dtype=DataType.Float)\n"
         "T17 = fd.ops.mul(T14, T16)\n"
         "T18 = fd.ops.broadcast_in_dim(T2, shape=" +
         full +
         ", broadcast_dims=[1])\n"
         "T19 = fd.ops.cast(T18, dtype=DataType.Float)\n"
         "T20 = fd.ops.add(T17, T19)\n"
         "T21 = fd.ops.cast(T20, dtype=DataType.BFloat16)\n"
         "fd.add_output(T21)\n"
         "fd.add_output(T5)\n"
         "fd.add_output(T10)\n";
}

// Runs layerNorm(rows, cols) on random bf16 input, weight and bias.
#define FL_CHECK_LAYER_NORM(rows, cols)                                                        \
  do {                                                                                         \
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));                           \
    define(layerNorm(rows, cols));                                                             \
    runAndCheck({random(DataType::BFloat16, {rows, cols}), random(DataType::BFloat16, {cols}), \
                 random(DataType::BFloat16, {cols})});                                         \
    FL_SKIP_IF_UNAVAILABLE();                                                                  \
  } while (0)

TEST_F(GpuInnerPersistentTest, LayerNormRowSizes) {
  for (auto [rows, cols] :
       {std::pair<int64_t, int64_t>{512, 4096}, {129, 1000}, {7, 12289}, {16, 32768}}) {
    FL_CHECK_LAYER_NORM(rows, cols);
  }
}

// Rows whose length 4 does not divide keep 8-byte accesses: each row
// starts its chunks of 4 at its first aligned element (a head of 0 to 3
// elements, different from row to row), the head and the tail go one
// element per thread. Row lengths with each remainder mod 4, and inputs
// whose data pointer is 2 or 8 bytes past an aligned address (no shift,
// and chunks of 4).
TEST_F(GpuInnerPersistentTest, ShiftedRowsOddLengths) {
  for (auto [rows, cols] :
       {std::pair<int64_t, int64_t>{64, 4099}, {33, 2050}, {17, 1031}, {9, 4101}, {40, 1029}}) {
    FL_CHECK_LAYER_NORM(rows, cols);
  }
  define(softmax(300, 2050));
  runAndCheck({random(DataType::BFloat16, {300, 2050})});
  FL_SKIP_IF_UNAVAILABLE();
  for (int64_t offset : {1, 4}) {
    SCOPED_TRACE("input offset by " + std::to_string(offset) + " elements");
    define(layerNorm(64, 4099));
    runAndCheck({randomAtOffset(DataType::BFloat16, {64, 4099}, offset),
                 random(DataType::BFloat16, {4099}), random(DataType::BFloat16, {4099})});
    FL_SKIP_IF_UNAVAILABLE();
  }
}

// A LayerNorm backward's saved mean and rstd, [rows, 1] floats (strides
// 1, 1), are one value per row: the bf16 rows around them keep their
// vectors (they were read one element at a time, the [rows, 1] taken for a
// transpose), 16 bytes of bf16, not of float, since those floats are read
// once per row. Against the CPU reference, with the factor the kernel got.
TEST_F(GpuInnerPersistentTest, LayerNormBackwardWithRowColumnsKeepsVectors) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{256, 4096}, {100, 1024}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    const std::string full = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
    define(
        "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
        "is_cpu=False)\n"
        "T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
        "is_cpu=False)\n"
        "T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, "
        "is_cpu=False)\n"
        "T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, "
        "is_cpu=False)\n"
        "T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, "
        "is_cpu=False)\n"
        "T5 = fd.ops.cast(T0, dtype=DataType.Float)\n"
        "T6 = fd.ops.cast(T1, dtype=DataType.Float)\n"
        "T7 = fd.ops.broadcast_in_dim(T2, shape=" +
        full +
        ", broadcast_dims=[0, 1])\n"
        "T8 = fd.ops.broadcast_in_dim(T3, shape=" +
        full +
        ", broadcast_dims=[0, 1])\n"
        "T10 = fd.ops.mul(fd.ops.sub(T6, T7), T8)\n"
        "T11 = fd.ops.broadcast_in_dim(T4, shape=" +
        full +
        ", broadcast_dims=[1])\n"
        "T13 = fd.ops.mul(T5, fd.ops.cast(T11, dtype=DataType.Float))\n"
        "T14 = fd.ops.sum(T13, dims=[1], keepdim=False, dtype=DataType.Null)\n"
        "T16 = fd.ops.sum(fd.ops.mul(T13, T10), dims=[1], keepdim=False, dtype=DataType.Null)\n"
        "T20 = fd.ops.broadcast_in_dim(T14, shape=" +
        full +
        ", broadcast_dims=[0])\n"
        "T21 = fd.ops.broadcast_in_dim(T16, shape=" +
        full +
        ", broadcast_dims=[0])\n"
        "T24 = fd.ops.sub(fd.ops.sub(T13, T20), fd.ops.mul(T10, T21))\n"
        "fd.add_output(fd.ops.cast(fd.ops.mul(T24, T8), dtype=DataType.BFloat16))\n");
    runAndCheck({random(DataType::BFloat16, {rows, cols}), random(DataType::BFloat16, {rows, cols}),
                 random(DataType::Float, {rows, 1}), random(DataType::Float, {rows, 1}),
                 random(DataType::BFloat16, {cols})});
    FL_SKIP_IF_UNAVAILABLE();
    const report::SegmentReport& segment = executor().lastReport()->segments.at(0);
    ASSERT_EQ(segment.scheduler, "inner_persistent");
    EXPECT_EQ(segment.params.get("vectorization_factor")->asInt(), 8);
  }
}

// Kept (unprojected) buffers take 16-byte chunks in shifted rows, and the
// block holds only the whole aligned chunks (at most cols / 8): row lengths
// with each remainder mod 8, so each row's head (0 to 7 elements) and the
// head-and-tail pass (up to 14) vary; inputs 4 elements past an aligned
// address fall back to chunks of 4, 8 elements past keep chunks of 8.
TEST_F(GpuInnerPersistentTest, ShiftedRowsIn16ByteChunks) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{300, 2050},
                            {64, 1027},
                            {33, 4097},
                            {50, 1028},
                            {96, 2053},
                            {70, 1030},
                            {17, 2055},
                            {40, 3073}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    for (int64_t offset : {0, 4, 8}) {
      SCOPED_TRACE("input offset by " + std::to_string(offset) + " elements");
      define(softmax(rows, cols));
      runAndCheck({randomAtOffset(DataType::BFloat16, {rows, cols}, offset)});
      FL_SKIP_IF_UNAVAILABLE();
      ASSERT_NE(executor().lastReport(), nullptr);
      const report::SegmentReport& segment = executor().lastReport()->segments.at(0);
      ASSERT_EQ(segment.scheduler, "inner_persistent");
      EXPECT_EQ(segment.params.get("vectorization_factor")->asInt(), offset == 4 ? 4 : 8);
      EXPECT_FALSE(segment.params.get("project_persistent_buffers")->asBool());
    }
  }
  // The suite's masked softmax: a bool mask read in 8-byte chunks beside the
  // bf16 input's 16-byte ones, from the same head.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{300, 2050}, {64, 1027}}) {
    SCOPED_TRACE("masked " + std::to_string(rows) + "x" + std::to_string(cols));
    const std::string full = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
    define(
        "T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
        "is_cpu=False)\n"
        "M = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Bool, "
        "is_cpu=False)\n"
        "T1 = fd.ops.cast(T0, dtype=DataType.Float)\n"
        "S1 = fd.define_scalar(float('-inf'), dtype=DataType.Double)\n"
        "T2 = fd.ops.where(M, T1, S1)\n"
        "T3 = fd.ops.max(T2, dims=[1], keepdim=False, dtype=DataType.Null)\n"
        "T4 = fd.ops.broadcast_in_dim(T3, shape=" +
        full +
        ", broadcast_dims=[0])\n"
        "T5 = fd.ops.exp(fd.ops.sub(T2, T4))\n"
        "T6 = fd.ops.sum(T5, dims=[1], keepdim=False, dtype=DataType.Null)\n"
        "T7 = fd.ops.broadcast_in_dim(T6, shape=" +
        full +
        ", broadcast_dims=[0])\n"
        "T8 = fd.ops.cast(fd.ops.div(T5, T7), dtype=DataType.BFloat16)\n"
        "fd.add_output(T8)\n");
    runAndCheck({random(DataType::BFloat16, {rows, cols}), random(DataType::Bool, {rows, cols})});
    FL_SKIP_IF_UNAVAILABLE();
    EXPECT_EQ(executor().lastReport()->segments.at(0).params.get("vectorization_factor")->asInt(),
              8);
  }
}

// Cross-entropy as Thunder writes it (issue 42 item 5): log-softmax over
// the last axis, take_along_axis of the [.., 1] label, then the negative
// mean over the rows or the per-row loss; optionally the log-softmax (in the
// logits' dtype) as an output too.
std::string crossEntropy(const std::vector<int64_t>& logits, const std::string& dtype,
                         bool logSoftmaxOutput, bool mean) {
  const size_t rank = logits.size();
  const size_t last = rank - 1;
  std::vector<int64_t> rowShape = logits;
  rowShape.back() = 1;
  int64_t rows = 1;
  for (size_t i = 0; i < last; ++i) rows *= logits[i];
  std::string kept = "[";
  std::string all = "[";
  std::string sym = "[";
  std::string contiguity = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i < last) kept += (i ? ", " : "") + std::to_string(i);
    all += (i ? ", " : "") + std::to_string(i);
    sym += i ? ", -1" : "-1";
    contiguity += i ? ", True" : "True";
  }
  kept += "]";
  all += "]";
  sym += "]";
  contiguity += "]";
  std::string labelSym = "[-1";
  std::string labelContiguity = "[True";
  for (size_t i = 1; i < last; ++i) {
    labelSym += ", -1";
    labelContiguity += ", True";
  }
  labelSym += "]";
  labelContiguity += "]";
  const std::string axis = "[" + std::to_string(last) + "]";
  std::string s = "T0 = fd.define_tensor(shape=" + sym + ", contiguity=" + contiguity +
                  ", dtype=DataType." + dtype +
                  ", is_cpu=False)\n"
                  "T1 = fd.define_tensor(shape=" +
                  labelSym + ", contiguity=" + labelContiguity +
                  ", dtype=DataType.Int, is_cpu=False)\n" +
                  (dtype == "Float" ? std::string("T2 = T0\n")
                                    : std::string("T2 = fd.ops.cast(T0, dtype=DataType.Float)\n")) +
                  "T3 = fd.ops.max(T2, dims=" + axis +
                  ", keepdim=False, dtype=DataType.Null)\n"
                  "T4 = fd.ops.broadcast_in_dim(T3, shape=" +
                  shape(rowShape) + ", broadcast_dims=" + kept +
                  ")\n"
                  "T5 = fd.ops.broadcast_in_dim(T4, shape=" +
                  shape(logits) + ", broadcast_dims=" + all +
                  ")\n"
                  "T6 = fd.ops.sub(T2, T5)\n"
                  "T7 = fd.ops.exp(T6)\n"
                  "T8 = fd.ops.sum(T7, dims=" +
                  axis +
                  ", keepdim=False, dtype=DataType.Null)\n"
                  "T9 = fd.ops.log(T8)\n"
                  "T10 = fd.ops.broadcast_in_dim(T9, shape=" +
                  shape(rowShape) + ", broadcast_dims=" + kept +
                  ")\n"
                  "T11 = fd.ops.broadcast_in_dim(T10, shape=" +
                  shape(logits) + ", broadcast_dims=" + all +
                  ")\n"
                  "T12 = fd.ops.sub(T6, T11)\n"
                  "T13 = fd.ops.broadcast_in_dim(T1, shape=" +
                  shape(rowShape) + ", broadcast_dims=" + kept +
                  ")\n"
                  "T14 = fd.ops.take_along_axis(T12, T13, dim=" +
                  std::to_string(last) + ")\n";
  if (mean) {
    s += "T15 = fd.ops.sum(T14, dims=" + all +
         ", keepdim=False, dtype=DataType.Null)\n"
         "S16 = fd.define_scalar(" +
         std::to_string(-1.0 / static_cast<double>(rows)) +
         ", dtype=DataType.Double)\n"
         "fd.add_output(fd.ops.mul(T15, S16))\n";
  } else {
    s += "fd.add_output(fd.ops.neg(T14))\n";
  }
  if (logSoftmaxOutput) {
    s += dtype == "Float" ? std::string("fd.add_output(T12)\n")
                          : "fd.add_output(fd.ops.cast(T12, dtype=DataType." + dtype + "))\n";
  }
  return s;
}

// Labels over the whole vocabulary: random, and in every fourth row the
// first or last columns (a shifted row's head and tail elements, taken one
// per thread), 0 and vocab - 1 among them.
Tensor labels(std::vector<int64_t> sizes, int64_t vocab, uint64_t seed) {
  Tensor t = Tensor::empty(DataType::Int, std::move(sizes));
  runtime::fillRandint(t, seed, 0, vocab);
  auto* data = t.dataAs<int64_t>();
  for (int64_t r = 0; r < t.numel(); ++r) {
    if (r % 4 == 0) data[r] = r / 4 % 16;
    if (r % 4 == 1) data[r] = vocab - 1 - r / 4 % 16;
  }
  return t;
}

// The label's log-prob is gathered by the log-softmax's inner persistent
// kernel (the thread holding the label's column keeps it), so at most one
// more kernel (the mean) runs and the [rows, vocab] log-softmax is written
// only where it is an output. Rank 2 and 3, bf16, fp16 and fp32 (fp32
// rows of 50257 kept in shared memory), vocabularies the 16-byte chunks
// do not divide, against the CPU reference.
TEST_F(GpuInnerPersistentTest, CrossEntropyGathersTheLabelInTheRowKernel) {
  const struct {
    std::vector<int64_t> logits;
    const char* dtype;
    bool logSoftmaxOutput;
    bool mean;
  } cases[] = {
      {{4096, 32064}, "BFloat16", false, true}, {{1000, 32003}, "BFloat16", false, true},
      {{300, 32003}, "BFloat16", true, false},  {{64, 50257}, "Half", false, false},
      {{256, 50257}, "Float", false, true},     {{96, 4099}, "Float", true, true},
      {{4, 7, 32003}, "Half", true, true},      {{2, 64, 32000}, "BFloat16", false, true},
      {{3, 33, 2050}, "BFloat16", true, false},
  };
  uint64_t seed = 7;
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.dtype) + " " + shape(c.logits) +
                 (c.logSoftmaxOutput ? " with the log-softmax" : "") +
                 (c.mean ? " (mean)" : " (per row)"));
    define(crossEntropy(c.logits, c.dtype, c.logSoftmaxOutput, c.mean));
    const DataType dtype = std::string(c.dtype) == "BFloat16" ? DataType::BFloat16
                           : std::string(c.dtype) == "Half"   ? DataType::Half
                                                              : DataType::Float;
    std::vector<int64_t> labelSizes(c.logits.begin(), c.logits.end() - 1);
    runAndCheck({random(dtype, c.logits), labels(labelSizes, c.logits.back(), ++seed)});
    FL_SKIP_IF_UNAVAILABLE();
    const report::CompileReport* report = executor().lastReport();
    ASSERT_NE(report, nullptr);
    EXPECT_LE(report->kernelCount(), 2);
    EXPECT_EQ(report->segments.at(0).scheduler, "inner_persistent");
  }
}

// A normalization backward with its weight gradients (issue 45 item 1) in
// one kernel: dx from the rows, dw and db as column sums over every row,
// each block's partials added over the grid after a grid barrier. Long and
// short rows (several rows a block), single-element chunks (1023), float.
// Each case runs twice on one executor: the barrier's counters set
// themselves back to zero for the next launch. Too few rows for the
// partials (1000x1024, 37x4096: under a block per SM) take the column sums
// in a reduction kernel of their own.
TEST_F(GpuInnerPersistentTest, NormBackwardWithWeightGradientsInOneKernel) {
  struct Case {
    bool layerNorm;
    int64_t rows;
    int64_t cols;
    DataType dtype;
    bool combined;
  };
  for (const Case& c : {Case{true, 8192, 4096, DataType::BFloat16, true},
                        Case{false, 8192, 4096, DataType::BFloat16, true},
                        Case{true, 1000, 1024, DataType::BFloat16, false},
                        Case{false, 8191, 1023, DataType::BFloat16, true},
                        Case{true, 3000, 256, DataType::BFloat16, true},
                        Case{true, 2048, 1024, DataType::Float, true},
                        Case{false, 37, 4096, DataType::BFloat16, false},
                        Case{true, 20000, 768, DataType::BFloat16, true}}) {
    SCOPED_TRACE(std::string(c.layerNorm ? "LayerNorm " : "RMSNorm ") + std::to_string(c.rows) +
                 "x" + std::to_string(c.cols) + " " + std::string(ir::toString(c.dtype)));
    define(test_scripts::normBackwardWithWeights(
        c.rows, c.cols, c.layerNorm, c.dtype == DataType::Float ? "Float" : "BFloat16"));
    for (int launch = 0; launch < 2; ++launch) {
      runtime::Arguments inputs = {random(c.dtype, {c.rows, c.cols}),
                                   random(c.dtype, {c.rows, c.cols}),
                                   random(DataType::Float, {c.rows, 1})};
      if (c.layerNorm) inputs.push_back(random(DataType::Float, {c.rows, 1}));
      inputs.push_back(random(c.dtype, {c.cols}));
      runAndCheck(inputs);
      FL_SKIP_IF_UNAVAILABLE();
      const auto& segments = executor().lastReport()->segments;
      ASSERT_EQ(segments.size(), c.combined ? 1u : 2u);
      EXPECT_EQ(segments[0].scheduler, "inner_persistent");
    }
  }
}

}  // namespace
}  // namespace fuserlab::gpu_test
