// Shared by the tuner tests: an example script compiled at given sizes on
// the H100 table entry, as a TuningTarget and its search space.
#pragma once

#include <memory>
#include <string>

#include "core/frontend/input_tensors.h"
#include "core/frontend/script.h"
#include "core/scheduler/device_spec.h"
#include "tests/source_dir.h"
#include "tuner/search_space.h"
#include "tuner/tuning_target.h"

namespace fuserlab::tuner {

struct ExampleTarget {
  frontend::Script script;
  std::unique_ptr<TuningTarget> target;
  SearchSpace space;
};

inline ExampleTarget exampleTarget(const std::string& example, const std::string& inputs,
                                   int segment = 0) {
  ExampleTarget e;
  e.script =
      frontend::readScriptFile(fuserlab::test::sourceDir() + "/resources/examples/" + example);
  const auto shapes = frontend::makeInputShapes(frontend::parseInputsOption(inputs));
  e.target = makeTuningTarget(e.script.fusion(), compiler::CompileOptions(),
                              scheduler::defaultDevice(), shapes, segment);
  e.space = buildSearchSpace(e.target->segmentFusion(), e.target->scheduler, e.target->bound.info,
                             e.target->defaultParams);
  return e;
}

}  // namespace fuserlab::tuner
