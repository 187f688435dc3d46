// libFuzzer entry point for what the workbench does with a pasted script
// before any GPU is involved: read it, then for every definition that has an
// inputs block, compile it for an H100 at those shapes (passes,
// segmentation, scheduler choice, heuristics; metadata-only tensors, so any
// size costs nothing) and generate every segment's CUDA source. A script or
// fusion may be refused with a UserError, and code generation may refuse a
// segment (recorded in its SegmentKernel); nothing may crash, hang, leak,
// hit an internal assertion or throw anything else.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "core/compiler/compile_options.h"
#include "core/compiler/fusion_compiler.h"
#include "core/compiler/segment_kernels.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/scheduler/device_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fuserlab;
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  frontend::Script script;
  try {
    script = frontend::readScript(source, "fuzz.py");
  } catch (const UserError&) {
    return 0;
  }
  const scheduler::DeviceSpec& device = scheduler::defaultDevice();
  // Inputs of even length compile with refine_reshaped_reductions off (on by
  // default), so the fuzzer walks both paths.
  compiler::CompileOptions options;
  options.refineReshapedReductions = (size % 2) == 1;
  for (size_t i = 0; i < script.definitions.size(); ++i) {
    const std::vector<frontend::InputSpec>* specs = script.inputsFor(i);
    if (specs == nullptr) continue;
    try {
      const runtime::Arguments inputs = frontend::makeInputShapes(*specs);
      const runtime::CompiledFusion compiled =
          runtime::compileFusion(*script.definitions[i].fusion, options, device, inputs,
                                 /*provider=*/nullptr, /*withTextDumps=*/true);
      (void)runtime::generateSegmentKernels(compiled, device, inputs);
    } catch (const UserError&) {
      continue;
    } catch (const std::exception& error) {
      // InternalError (an FL_ASSERT) or anything else: a bug, with the
      // message where the crash report shows it.
      std::fprintf(stderr, "compiling definition %zu threw: %s\n", i, error.what());
      std::abort();
    }
  }
  return 0;
}
