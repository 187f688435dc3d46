// Row gathers (issue 42 item 5, issue 45 item 3): cross-entropy's
// take_along_axis of the label from the log-softmax runs in the inner
// persistent kernel that computes the log-softmax. The thread holding the
// label's column keeps its element; the [N, V] log-softmax never goes to
// global memory unless it is itself an output, and at most one small
// kernel (the mean over the rows) follows. Compiled for an H100 at the
// sizes given, every kernel through NVRTC.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cuda/nvrtc_compiler.h"
#include "tests/codegen/codegen_fixture.h"
#include "tests/source_dir.h"

namespace fuserlab::codegen {
namespace {

struct GatherCase {
  std::vector<int64_t> logits;                //!< [N, V] or [B, S, V]
  std::string dtype = "BFloat16";             //!< of the logits
  std::string normalization = "log_softmax";  //!< or "softmax", "layer_norm"
  bool normalizedOutput = false;              //!< the normalized rows are an output too
  bool mean = true;                           //!< the negative mean over the rows (else -gathered)
};

std::string shapeText(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return out + "]";
}

std::string dimsText(size_t count) {
  std::string out = "[";
  for (size_t i = 0; i < count; ++i) out += (i ? ", " : "") + std::to_string(i);
  return out + "]";
}

std::string inputSpec(const GatherCase& c) {
  const std::string dtype = c.dtype == "BFloat16" ? "bf16" : c.dtype == "Half" ? "f16" : "f32";
  std::string logits;
  std::string labels;
  for (size_t i = 0; i < c.logits.size(); ++i) {
    logits += (i ? "x" : "") + std::to_string(c.logits[i]);
    if (i + 1 < c.logits.size()) labels += (i ? "x" : "") + std::to_string(c.logits[i]);
  }
  return logits + ":" + dtype + "," + labels + ":i64";
}

//! Cross-entropy as Thunder writes it (constant shapes, broadcast_in_dim),
//! over the last axis of the logits, with the label gathered from the
//! normalized rows.
std::string gatherScript(const GatherCase& c) {
  const size_t rank = c.logits.size();
  const size_t last = rank - 1;
  std::vector<int64_t> rowShape = c.logits;
  rowShape.back() = 1;
  int64_t rows = 1;
  for (size_t i = 0; i < last; ++i) rows *= c.logits[i];
  const std::string full = shapeText(c.logits);
  const std::string row = shapeText(rowShape);
  const std::string kept = dimsText(last);
  const std::string all = dimsText(rank);
  const std::string axis = "[" + std::to_string(last) + "]";
  std::string contiguity = "[True";
  std::string symbolic = "[-1";
  for (size_t i = 1; i < rank; ++i) {
    contiguity += ", True";
    symbolic += ", -1";
  }
  contiguity += "]";
  symbolic += "]";
  std::string labelContiguity = "[True";
  std::string labelSymbolic = "[-1";
  for (size_t i = 1; i < last; ++i) {
    labelContiguity += ", True";
    labelSymbolic += ", -1";
  }
  labelContiguity += "]";
  labelSymbolic += "]";
  std::string s = "    T0 = fd.define_tensor(shape=" + symbolic + ", contiguity=" + contiguity +
                  ", dtype=DataType." + c.dtype +
                  ", is_cpu=False)\n"
                  "    T1 = fd.define_tensor(shape=" +
                  labelSymbolic + ", contiguity=" + labelContiguity +
                  ", dtype=DataType.Int, is_cpu=False)\n";
  s += c.dtype == "Float" ? "    X = T0\n" : "    X = fd.ops.cast(T0, dtype=DataType.Float)\n";
  auto back = [&](const std::string& name, const std::string& value) {
    s += "    " + name + "r = fd.ops.broadcast_in_dim(" + value + ", shape=" + row +
         ", broadcast_dims=" + kept + ")\n";
    s += "    " + name + " = fd.ops.broadcast_in_dim(" + name + "r, shape=" + full +
         ", broadcast_dims=" + all + ")\n";
  };
  if (c.normalization == "layer_norm") {
    const std::string inverse = std::to_string(1.0 / static_cast<double>(c.logits.back()));
    s += "    S = fd.ops.sum(X, dims=" + axis + ", keepdim=False, dtype=DataType.Null)\n";
    s += "    M = fd.ops.mul(S, " + inverse + ")\n";
    back("Mb", "M");
    s += "    D = fd.ops.sub(X, Mb)\n";
    s += "    Q = fd.ops.sum(fd.ops.mul(D, D), dims=" + axis +
         ", keepdim=False, dtype=DataType.Null)\n";
    s += "    R = fd.ops.rsqrt(fd.ops.add(fd.ops.mul(Q, " + inverse + "), 1e-5))\n";
    back("Rb", "R");
    s += "    P = fd.ops.mul(D, Rb)\n";
  } else {
    s += "    M = fd.ops.max(X, dims=" + axis + ", keepdim=False, dtype=DataType.Null)\n";
    back("Mb", "M");
    s += "    D = fd.ops.sub(X, Mb)\n";
    s += "    E = fd.ops.exp(D)\n";
    s += "    S = fd.ops.sum(E, dims=" + axis + ", keepdim=False, dtype=DataType.Null)\n";
    if (c.normalization == "softmax") {
      back("Sb", "S");
      s += "    P = fd.ops.div(E, Sb)\n";
    } else {
      back("Lb", "fd.ops.log(S)");
      s += "    P = fd.ops.sub(D, Lb)\n";
    }
  }
  s += "    I = fd.ops.broadcast_in_dim(T1, shape=" + row + ", broadcast_dims=" + kept + ")\n";
  s += "    G = fd.ops.take_along_axis(P, I, dim=" + std::to_string(last) + ")\n";
  if (c.mean) {
    s += "    L = fd.ops.sum(G, dims=" + all + ", keepdim=False, dtype=DataType.Null)\n";
    s += "    fd.add_output(fd.ops.mul(L, " + std::to_string(-1.0 / static_cast<double>(rows)) +
         "))\n";
  } else {
    s += "    fd.add_output(fd.ops.neg(G))\n";
  }
  if (c.normalizedOutput) {
    s += c.dtype == "Float" ? "    fd.add_output(P)\n"
                            : "    fd.add_output(fd.ops.cast(P, dtype=DataType." + c.dtype + "))\n";
  }
  return script(s);
}

std::string describe(const GatherCase& c) {
  return c.normalization + " " + c.dtype + " " + shapeText(c.logits) +
         (c.normalizedOutput ? " with the normalized rows as an output" : "") +
         (c.mean ? ", mean over the rows" : ", per row");
}

int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

//! What every fused case asserts: at most two kernels, all generated and
//! NVRTC-compiled, the first an inner persistent kernel that gathers (its
//! row's column, gcol_), and no tensor of more than one element per row
//! passed between segments.
void expectGatheredInTheRowKernel(const std::vector<runtime::SegmentKernel>& kernels,
                                  const report::CompileReport& report, const GatherCase& c) {
  const int64_t rows = elements(c.logits) / c.logits.back();
  EXPECT_LE(kernels.size(), 2u);
  ASSERT_FALSE(kernels.empty());
  for (const runtime::SegmentKernel& segment : kernels) {
    SCOPED_TRACE(segment.name);
    ASSERT_TRUE(segment.kernel.has_value()) << segment.error;
    EXPECT_FALSE(runtime::compileWithNvrtc(*segment.kernel, 90).cubin.empty());
  }
  const runtime::SegmentKernel& first = kernels.front();
  EXPECT_EQ(first.scheduler, scheduler::SchedulerType::InnerPersistent);
  EXPECT_TRUE(contains(first.kernel->source, "gcol_")) << first.kernel->source;
  for (const report::EdgeReport& edge : report.edges) {
    EXPECT_LE(elements(edge.shape), rows)
        << edge.tensor << " (" << shapeText(edge.shape) << ") goes through global memory "
        << "from segment " << edge.from << " to " << edge.to;
  }
}

// The corpus reproducer: Thunder's cross-entropy over a bf16 [256, 32064]
// (the issue's 4096 rows at a CPU reference's size). Before: an inner
// persistent kernel writing the [N, V] float log-softmax, a pointwise gather
// and the mean: three kernels.
// A script of the repository compiled for an H100 at its inputs block's
// sizes (none: bad_optional_access, the test's error).
struct ScriptOnH100 {
  explicit ScriptOnH100(const std::string& relative)
      : script(frontend::readScriptFile(fuserlab::test::sourceDir() + "/" + relative)),
        device(scheduler::findBuiltinDevice("h100").value()),
        args(frontend::makeInputShapes(script.inputs.value())),
        compiled(
            runtime::compileFusion(script.fusion(), compiler::CompileOptions{}, device, args)) {}
  frontend::Script script;
  scheduler::DeviceSpec device;
  runtime::Arguments args;
  runtime::CompiledFusion compiled;
};

TEST(RowGatherTest, CrossEntropyCorpusScriptRunsInTwoKernels) {
  const ScriptOnH100 s("tests/frontend/corpus/issue42_cross_entropy_take_along_axis.py");
  const std::vector<runtime::SegmentKernel> kernels =
      runtime::generateSegmentKernels(s.compiled, s.device, s.args);
  GatherCase c;
  c.logits = {256, 32064};
  expectGatheredInTheRowKernel(kernels, s.compiled.report, c);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[1].scheduler, scheduler::SchedulerType::Reduction);
  // The label (int64) does not hold the bf16 rows to 16-byte vectors of 2.
  EXPECT_EQ(s.compiled.report.segments.at(0).params.get("vectorization_factor")->asInt(), 8);
}

// GPT-2's vocabulary, 50,257 (no multiple of 8): shifted rows. The kernel
// keeps no row (max and log-sum-exp reduce in one pass, the label's logit is
// kept by the thread that reads it), so its chunks are 16 bytes, not the
// 8 of kernels that keep projected buffers (H200, the tuner: 96.2 us in
// chunks of 4, 78.8 to 80.3 in chunks of 8).
TEST(RowGatherTest, CrossEntropyOverShiftedRowsKeepsNothingAndTakes16ByteChunks) {
  const ScriptOnH100 s("tests/perf/suite/cross_entropy_2047x50257.py");
  const report::SegmentReport& segment = s.compiled.report.segments.at(0);
  ASSERT_EQ(segment.scheduler, "inner_persistent");
  EXPECT_EQ(segment.params.get("vectorization_factor")->asInt(), 8);
  const std::string properties = segment.properties.dump(-1);
  EXPECT_NE(properties.find("the kernel keeps no buffer: one pass over the row"), std::string::npos)
      << properties;
}

// The class: log-softmax, softmax and layer-norm-like rows, bf16, fp16 and
// fp32, rank 2 and 3 ([B, S, V] with a [B, S, 1] label), odd vocabularies
// (shifted rows: a head and tail element per thread), the normalized rows
// an output too, the mean in the fusion or the per-row loss as the output.
TEST(RowGatherTest, NormalizationFollowedByTakeAlongAxisGathersInTheRowKernel) {
  const std::vector<GatherCase> cases = {
      {{4096, 32064}, "BFloat16"},
      {{512, 32003}, "BFloat16"},
      {{64, 50257}, "Half", "log_softmax", false, false},
      {{256, 4096}, "Float"},
      {{4, 7, 32003}, "Half", "log_softmax", true},
      {{2, 64, 32000}, "BFloat16"},
      {{300, 2050}, "BFloat16", "log_softmax", true, false},
      {{128, 1000}, "Float", "softmax"},
      {{96, 4099}, "BFloat16", "layer_norm", true},
  };
  for (const GatherCase& c : cases) {
    SCOPED_TRACE(describe(c));
    const CompiledScript compiled = compileScript(gatherScript(c), inputSpec(c));
    expectGatheredInTheRowKernel(compiled.kernels, compiled.compiled.report, c);
    if (compiled.kernels.empty() || !compiled.kernels.front().kernel) continue;
    // The row kernel writes the normalized rows (output lanes T_st) only
    // when they are an output.
    const std::string& source = compiled.kernels.front().kernel->source;
    EXPECT_EQ(contains(source, "_st;"), c.normalizedOutput) << source;
  }
}

// What stays out of the row kernel: a gather along a kept axis, an index
// that takes two elements per row. Each still compiles, as before.
TEST(RowGatherTest, OtherGathersStayOutOfTheRowKernel) {
  const std::string head =
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, "
      "is_cpu=False)\n"
      "    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, "
      "is_cpu=False)\n"
      "    X = fd.ops.cast(T0, dtype=DataType.Float)\n"
      "    M = fd.ops.max(X, dims=[1], keepdim=True)\n"
      "    E = fd.ops.exp(fd.ops.sub(X, M))\n"
      "    P = fd.ops.div(E, fd.ops.sum(E, dims=[1], keepdim=True))\n";
  const struct {
    const char* what;
    std::string gather;
    std::string inputs;
  } cases[] = {
      {"along the kept axis", "    fd.add_output(fd.ops.take_along_axis(P, T1, dim=0))\n",
       "64x1024:bf16,1x1024:i64"},
      {"two elements per row", "    fd.add_output(fd.ops.take_along_axis(P, T1, dim=1))\n",
       "64x1024:bf16,64x2:i64"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const CompiledScript compiled = compileScript(script(head + c.gather), c.inputs);
    ASSERT_FALSE(compiled.kernels.empty());
    for (const runtime::SegmentKernel& segment : compiled.kernels) {
      SCOPED_TRACE(segment.name);
      ASSERT_TRUE(segment.kernel.has_value()) << segment.error;
      EXPECT_FALSE(contains(segment.kernel->source, "gcol_"));
      EXPECT_FALSE(runtime::compileWithNvrtc(*segment.kernel, 90).cubin.empty());
    }
  }
}

}  // namespace
}  // namespace fuserlab::codegen
