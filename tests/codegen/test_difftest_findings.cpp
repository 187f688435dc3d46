// Kernels the differential tester found wrong on an H200 (its first runs,
// 7,000 random fusions), checked here in their generated CUDA: each test
// fails without its fix. The GPU runs (and seed 1811's misaligned vectors,
// which need a run's strides) are in tests/gpu/test_gpu_pointwise.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/passes/compile_options.h"
#include "core/runtime/fusion_compiler.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/segment_kernels.h"
#include "core/scheduler/device_spec.h"

namespace fuserlab {
namespace {

std::vector<std::string> kernelSources(const std::string& text) {
  const frontend::Script script = frontend::readScript(text, "difftest.py");
  const auto device = scheduler::findBuiltinDevice("h100");
  const runtime::Arguments args = frontend::makeInputShapes(*script.inputs);
  const runtime::CompiledFusion compiled =
      runtime::compileFusion(script.fusion(), passes::CompileOptions{}, *device, args);
  std::vector<std::string> sources;
  for (const runtime::SegmentKernel& segment : runtime::generateSegmentKernels(compiled, *device, args)) {
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

}  // namespace
}  // namespace fuserlab
