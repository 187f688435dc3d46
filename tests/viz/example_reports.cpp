#include "tests/viz/example_reports.h"
#include "tests/source_dir.h"

#include "core/compiler/fusion_compiler.h"
#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"

namespace fuserlab::viz::testing {

report::CompileReport compileExample(const std::string& fileName,
                                     const std::vector<std::string>& assignments) {
  const frontend::Script script =
      frontend::readScriptFile(fuserlab::test::sourceDir() + "/resources/examples/" + fileName);
  compiler::CompileOptions options;
  for (const auto& assignment : assignments) options.setFromAssignment(assignment);
  return runtime::compileFusion(script.fusion(), options, scheduler::defaultDevice(),
                                frontend::makeInputShapes(*script.inputs))
      .report;
}

report::CompileReport compileScriptText(const std::string& text, const std::string& name) {
  const frontend::Script script = frontend::readScript(text, name);
  return runtime::compileFusion(script.fusion(), compiler::CompileOptions{},
                                scheduler::defaultDevice(),
                                frontend::makeInputShapes(*script.inputs))
      .report;
}

const std::vector<std::string>& graphExamples() {
  static const std::vector<std::string> examples = {
      "seed000_forwarding_miss.py",
      "seed001_nanogpt_layer_norm.py",
      "seed001_bookend_inputs.py",
      "layer_norm.py",
      "softmax.py",
      "pad_cat.py",
      "welford.py",
      "silu_mul.py",
  };
  return examples;
}

}  // namespace fuserlab::viz::testing
