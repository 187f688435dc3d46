// Segment repros (issue 47 item 2): every segment of a bundled example,
// written as a standalone script, reads back and compiles with as many ops as
// the segment; run one after another on the CPU reference, each from its
// inputs block's layout, the segments' scripts give the fusion's outputs.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/inputs_block_writer.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/reference/reference_run.h"
#include "core/repro/segment_repro.h"
#include "core/scheduler/device_spec.h"
#include "core/tensor/result_check.h"
#include "tests/source_dir.h"

namespace fuserlab::frontend {
namespace {

std::string example(const std::string& name) {
  return fuserlab::test::sourceDir() + "/resources/examples/" + name;
}

runtime::CompiledFusion compile(const Script& script) {
  return runtime::compileFusion(script.fusion(), compiler::CompileOptions(),
                                scheduler::defaultDevice(), makeInputShapes(*script.inputs));
}

// A segment input's value laid out as the repro's inputs block lays it out.
runtime::Argument laidOut(const runtime::Argument& value, const InputSpec& spec) {
  const auto* tensor = std::get_if<runtime::Tensor>(&value);
  if (tensor == nullptr || !spec.stridedStrides) return value;
  runtime::Tensor out =
      runtime::Tensor::emptyStrided(tensor->dtype(), *spec.stridedSizes, *spec.stridedStrides);
  runtime::copyInto(*tensor, out);
  return out;
}

class SegmentReproTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SegmentReproTest, SegmentsReadBackAndChainToTheFusionOutputs) {
  const Script original = readScriptFile(example(GetParam()));
  ASSERT_TRUE(original.inputs.has_value());
  const runtime::CompiledFusion compiled = compile(original);
  const auto& groups = compiled.segmented->groups();
  const ir::Fusion& complete = compiled.segmented->complete();

  const runtime::Arguments inputs = makeInputs(*original.inputs, 7);
  std::map<const ir::Val*, runtime::Argument> values;
  for (size_t i = 0; i < inputs.size(); ++i) values[complete.inputs()[i]] = inputs[i];

  std::vector<bool> done(groups.size(), false);
  for (size_t round = 0; round < groups.size(); ++round) {
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto& group = groups[g];
      bool ready = !done[g];
      for (const ir::Val* in : group.inputs) {
        ready = ready && (values.count(in) || !in->isA<ir::TensorView>());
      }
      if (!ready) continue;
      SCOPED_TRACE("segment " + std::to_string(g));
      const std::string text = writeSegmentRepro(compiled, g, *original.inputs, GetParam());
      const Script back = readScript(text, "segment.py");
      ASSERT_TRUE(back.inputs.has_value()) << text;
      EXPECT_EQ(back.fusion().exprsForOutputs().size(), group.segment->exprsForOutputs().size())
          << text;
      EXPECT_EQ(back.fusion().inputs().size(), group.inputs.size());
      EXPECT_EQ(back.fusion().outputs().size(), group.outputs.size());
      // It compiles at its own inputs block's sizes, and runs on them.
      EXPECT_NO_THROW(compile(back)) << text;
      EXPECT_NO_THROW(runtime::runReference(back.fusion(), makeInputs(*back.inputs, 1))) << text;
      // Run on the values the earlier segments computed.
      const std::vector<InputSpec> specs = segmentInputSpecs(compiled, g, *original.inputs);
      runtime::Arguments args;
      for (size_t i = 0; i < group.inputs.size(); ++i) {
        const ir::Val* in = group.inputs[i];
        args.push_back(values.count(in) ? laidOut(values.at(in), specs[i])
                                        : runtime::Argument(specs[i].scalar));
      }
      const auto outputs = runtime::runReference(back.fusion(), args);
      for (size_t o = 0; o < outputs.size(); ++o) values[group.outputs[o]] = outputs[o];
      done[g] = true;
    }
  }
  for (size_t g = 0; g < groups.size(); ++g) EXPECT_TRUE(done[g]) << "segment " << g;

  const auto expected = runtime::runReference(original.fusion(), inputs);
  ASSERT_EQ(expected.size(), complete.outputs().size());
  for (size_t o = 0; o < expected.size(); ++o) {
    const ir::Val* out = complete.outputs()[o].val;
    ASSERT_TRUE(values.count(out)) << out->name();
    const auto& actual = std::get<runtime::Tensor>(values.at(out));
    const runtime::TensorCheck check =
        runtime::checkTensor(actual, expected[o], out->name(), runtime::Tolerance{1e-6, 1e-6, 0});
    EXPECT_TRUE(check.passed) << check.message;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, SegmentReproTest,
                         ::testing::Values("seed000_forwarding_miss.py",
                                           "seed001_bookend_inputs.py",
                                           "seed001_nanogpt_layer_norm.py", "meta_op_chain.py",
                                           "index_select_gather.py", "layer_norm.py", "pad_cat.py",
                                           "expanded_inputs.py", "stride_order_io.py", "welford.py",
                                           "dynamic_shapes.py"),
                         [](const auto& info) {
                           std::string name = info.param.substr(0, info.param.size() - 3);
                           for (char& c : name)
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

TEST(SegmentReproErrorTest, ASegmentOutOfRangeIsAUserError) {
  const Script original = readScriptFile(example("layer_norm.py"));
  const runtime::CompiledFusion compiled = compile(original);
  try {
    writeSegmentRepro(compiled, 5, *original.inputs, "layer_norm.py");
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("segment 5 does not exist"), std::string::npos)
        << error.what();
  }
}

TEST(InputsBlockWriterTest, WritesWhatTheReaderReadsBack) {
  const std::string block =
      "inputs = [\n"
      "    torch.randn((4, 8), dtype=torch.bfloat16, device='cuda:0').as_strided((4, 8), (1, 4)),\n"
      "    torch.randint(0, 10, (3,), dtype=torch.int64, device='cuda:0'),\n"
      "    torch.testing.make_tensor((2,), dtype=torch.float32, device='cuda:0', low=-1.0, "
      "high=1.0),\n"
      "    torch.full((2, 2), 0.5, dtype=torch.float16, device='cuda:0'),\n"
      "    0.25,\n"
      "    3,\n"
      "]\n";
  const std::string script =
      "import torch\nfrom nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n"
      "    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], "
      "dtype=DataType.BFloat16, stride_order=[0, 1])\n"
      "    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)\n"
      "    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)\n"
      "    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half)\n"
      "    S4 = fd.define_scalar(None, dtype=DataType.Double)\n"
      "    S5 = fd.define_scalar(None, dtype=DataType.Int)\n"
      "    fd.add_output(T2)\n"
      "with FusionDefinition() as fd:\n    f(fd)\n";
  const Script read = readScript(script + block, "block.py");
  ASSERT_TRUE(read.inputs.has_value());
  EXPECT_EQ(writeInputsBlock(*read.inputs), block);
}

}  // namespace
}  // namespace fuserlab::frontend
