// Kernels the differential tester found wrong on an H200 (its first runs,
// 7,000 random fusions), checked here in their generated CUDA: each test
// fails without its fix. The GPU runs (and seed 1811's misaligned vectors,
// which need a run's strides) are in tests/gpu/test_gpu_pointwise.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/compiler/compile_options.h"
#include "core/compiler/fusion_compiler.h"
#include "core/compiler/segment_kernels.h"
#include "core/cuda/nvrtc_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/scheduler/device_spec.h"
#include "tests/source_dir.h"

namespace fuserlab {
namespace {

std::vector<std::string> kernelSources(const std::string& text,
                                       const compiler::CompileOptions& options = {}) {
  const frontend::Script script = frontend::readScript(text, "difftest.py");
  const auto device = scheduler::findBuiltinDevice("h100");
  const runtime::Arguments args = frontend::makeInputShapes(*script.inputs);
  const runtime::CompiledFusion compiled =
      runtime::compileFusion(script.fusion(), options, *device, args);
  std::vector<std::string> sources;
  for (const runtime::SegmentKernel& segment :
       runtime::generateSegmentKernels(compiled, *device, args)) {
    EXPECT_TRUE(segment.kernel.has_value()) << segment.error;
    if (!segment.kernel) continue;
    EXPECT_FALSE(runtime::compileWithNvrtc(*segment.kernel, 90).cubin.empty());
    sources.push_back(segment.kernel->source);
  }
  return sources;
}

// Seed 1654: a reshape that regroups an expanded broadcast axis with a real
// one ([1, 33 (expanded), 64, 32] to [1, 2112, 32]) walks along it. The
// output's row was 64 * a1 + a2; kept as a broadcast it was a2 under
// `a1 == 0`, and 65,536 of 67,584 elements were never written (NaN).
TEST(DifftestFindingsTest, AReshapeOfAnExpandedAxisWritesEveryRow) {
  const std::vector<std::string> sources = kernelSources(R"(
import torch
from nvfuser_direct import FusionDefinition, DataType
inputs = [torch.randn((64, 32), dtype=torch.bfloat16, device="cuda")]
with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.ops.broadcast_in_dim(T0, shape=[1, 33, 64, 32], broadcast_dims=[2, 3])
    T2 = fd.ops.cast(T1, dtype=DataType.Float)
    T3 = fd.ops.reshape(T2, new_shape=[1, 2112, 32])
    fd.add_output(T2)
    fd.add_output(T3)
fd.execute(inputs)
)");
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_NE(sources[0].find("64 * a1 + a2"), std::string::npos) << sources[0];
  EXPECT_EQ(sources[0].find("if (a1 == 0)"), std::string::npos) << sources[0];
}

std::string findingScript(const std::string& name) {
  std::ifstream in(fuserlab::test::sourceDir() + "/tests/difftest/findings/" + name);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

// Seed 101386: an iota of 33 reshaped to [11, 3], sliced to [1, 2]. The
// slice clamped the walk's pieces to the slice's extents, so the output's
// row and column were taken as digits of [1, 2] instead of [11, 3], and
// the output was never written (poison on an H200).
TEST(DifftestFindingsTest, ASliceAfterAReshapeKeepsTheWalksDigits) {
  const std::vector<std::string> sources = kernelSources(findingScript("difftest_101386.py"));
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_NE(sources[0].find("/ 3) % 11)"), std::string::npos) << sources[0];
  EXPECT_EQ(sources[0].find("% 1)"), std::string::npos) << sources[0];
}

// Seeds 108449, 102576 and 108417: a cat's output reached at offset 0 from
// its first operand is longer than the walk of a reference that does not
// cover the second operand; its rows were never written. Such an output
// gets a segment of its own.
TEST(DifftestFindingsTest, ACatLongerThanTheWalkIsNotWrittenFromIt) {
  EXPECT_EQ(kernelSources(findingScript("difftest_108449.py")).size(), 2u);
  EXPECT_EQ(kernelSources(findingScript("difftest_102576.py")).size(), 2u);
  EXPECT_EQ(kernelSources(findingScript("difftest_108417.py")).size(), 3u);
}

// Seeds 104723, 104387 and 102615: a reduction kernel loads each input and
// computes each value once per position; a tensor also needed at another
// position (T0 beside permute(T0), a row max times its transpose) made it
// read its own position's value for both. The permuted use goes to a
// segment of its own.
TEST(DifftestFindingsTest, AReductionKernelNeverNeedsATensorAtTwoPositions) {
  for (const char* name : {"difftest_104723.py", "difftest_104387.py"}) {
    SCOPED_TRACE(name);
    const std::vector<std::string> sources = kernelSources(findingScript(name));
    ASSERT_EQ(sources.size(), 2u);
  }
  EXPECT_EQ(kernelSources(findingScript("difftest_102615.py")).size(), 3u);
}

// Seed 201035 (an illegal address on an H200): T1 = slice(T0), 3 rows, is
// an output beside a cat of 11 rows, the reference. The walk passes T1's
// end; its store was predicated, but computing its value loaded T0 at rows
// 3..10. Every load of T0 is under a condition now.
TEST(DifftestFindingsTest, AnOutputPastItsEndReadsNothing) {
  const std::string source = findingScript("difftest_201035.py");
  const frontend::Script script = frontend::readScript(source, "difftest.py");
  const auto device = scheduler::findBuiltinDevice("h100");
  const runtime::Arguments args = frontend::makeInputShapes(*script.inputs);
  compiler::CompileOptions options;
  options.setFromAssignment("bookend=none");
  const runtime::CompiledFusion compiled =
      runtime::compileFusion(script.fusion(), options, *device, args);
  bool sawPointwise = false;
  for (const runtime::SegmentKernel& segment :
       runtime::generateSegmentKernels(compiled, *device, args)) {
    ASSERT_TRUE(segment.kernel.has_value()) << segment.error;
    if (segment.kernel->source.find("pointwise_seg") == std::string::npos) continue;
    sawPointwise = true;
    // Each load of T0 is bounded along its row axis, a1 (T0 has 3 rows, the
    // reference 11): on its own line or by an enclosing block's `if`.
    std::istringstream lines(segment.kernel->source);
    std::string line;
    std::vector<bool> bounding;  // per open block: its `if` tests a1
    while (std::getline(lines, line)) {
      const bool tests =
          line.find("if (") != std::string::npos && line.find("a1 <") != std::string::npos;
      if (line.find("T0.data +") != std::string::npos ||
          line.find("T0.data[") != std::string::npos) {
        const bool inside = std::find(bounding.begin(), bounding.end(), true) != bounding.end();
        EXPECT_TRUE(tests || inside) << line;
      }
      for (char c : line) {
        if (c == '{') bounding.push_back(tests);
        if (c == '}' && !bounding.empty()) bounding.pop_back();
      }
    }
  }
  EXPECT_TRUE(sawPointwise);
}

// Seed 305717 (NaN on an H200): an identity broadcast of a stride-2 input
// is a fusion output beside a sum of it, so the reduction kernel writes the
// input into a new buffer. It wrote it with the input's stride 2: two of
// three elements unwritten, one written past the end. A pass-through output
// is now written dense.
TEST(DifftestFindingsTest, AnInputWrittenAsAnOutputIsWrittenDense) {
  const std::vector<std::string> sources = kernelSources(findingScript("difftest_305717.py"));
  ASSERT_EQ(sources.size(), 1u);
  std::istringstream lines(sources[0]);
  std::string line;
  int stores = 0;
  while (std::getline(lines, line)) {
    if (line.find("T0_out1.data[") == std::string::npos) continue;
    ++stores;
    EXPECT_EQ(line.find("* 2"), std::string::npos) << line;
  }
  EXPECT_GE(stores, 1) << sources[0];
}

// Seed 352802: an iota of length 1 expanded to [64], then min over it. The
// iota's axis has extent 1 but is not a broadcast axis, so the expand's
// producer index was the consumer's a0: the kernel computed 0..63 where
// every element is 0, and the min read whatever was written last.
TEST(DifftestFindingsTest, AnExpandedLengthOneIotaIsReadAtZero) {
  const std::vector<std::string> sources = kernelSources(findingScript("difftest_352802.py"));
  ASSERT_GE(sources.size(), 1u);
  EXPECT_NE(sources[0].find("fl::mul((int64_t)(0), (int64_t)1ll)"), std::string::npos)
      << sources[0];
  EXPECT_EQ(sources[0].find("fl::mul((int64_t)(lane_a0)"), std::string::npos) << sources[0];
  EXPECT_EQ(sources[0].find("fl::mul((int64_t)(a0)"), std::string::npos) << sources[0];
}

// Seed 371095: T6 = reshape(broadcast_in_dim(T1, [8, 33]), [264]) beside
// the [8, 128, 1, 8] output T4, the reference. No axis of T4 reaches the
// broadcast axis of 33, so the kernel wrote T6 at 33 * a0 only: 8 of 264
// elements (with bookend=none, which keeps the reshape in the kernel). Such
// an output gets a segment of its own: here a kernel-free view of T1.
TEST(DifftestFindingsTest, AnAxisNoReferenceAxisWalksIsNotWrittenFromTheWalk) {
  compiler::CompileOptions options;
  options.set("bookend", "none");
  const std::vector<std::string> sources =
      kernelSources(findingScript("difftest_371095.py"), options);
  ASSERT_EQ(sources.size(), 1u);
  for (const std::string& source : sources) {
    EXPECT_EQ(source.find("(33 * a0)"), std::string::npos) << source;
  }
}

// Seed 678434 (H200): a [25575] output, the reshape of a slice (rows 12 to
// 20, step 2) of an expanded broadcast axis of 33, beside the [5, 1, 33,
// 1023] output it was sliced from. One kernel walked the larger output and
// wrote the smaller at 5115 * a0 + 1023 * a2 + a3 for all 33 values of a2:
// 168,795 writes into 25,575 elements, past its end into the other output.
// The walk of a reference axis over more indices than the output's piece
// of it has is refused now, and the slice goes to a kernel of its own.
TEST(DifftestFindingsTest, AnOutputShorterThanItsReferenceAxisIsNotWrittenFromTheWalk) {
  compiler::CompileOptions options;
  options.set("upcast", "forward");
  const std::vector<std::string> sources =
      kernelSources(findingScript("difftest_678434.py"), options);
  ASSERT_EQ(sources.size(), 2u);
  for (const std::string& source : sources) {
    const bool walksThe33 = source.find("ref_e2 = 33;") != std::string::npos;
    EXPECT_FALSE(walksThe33 && source.find("1023 * a2") != std::string::npos) << source;
  }
}

}  // namespace
}  // namespace fuserlab
