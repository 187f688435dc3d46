// Bundled examples compiled for the reduction-family emitter tests: each
// reduction, inner or outer persistent segment bound at its sizes as the
// executor binds it, and its kernel generated with given params
// (test_reduction_emitter.cpp's sweeps, test_reduction_kernels.cpp's
// kernels).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/codegen/codegen.h"
#include "core/compiler/segment_kernels.h"
#include "tests/codegen/codegen_fixture.h"
#include "tests/source_dir.h"

namespace fuserlab::codegen {

using scheduler::PersistentStorage;
using scheduler::ReductionParams;
using scheduler::SchedulerType;

class ReductionEmitterTest : public ::testing::Test {};

inline bool isReductionFamily(SchedulerType type) {
  return type == SchedulerType::Reduction || type == SchedulerType::InnerPersistent ||
         type == SchedulerType::OuterPersistent;
}

inline std::string examplePath(const std::string& file) {
  return fuserlab::test::sourceDir() + "/resources/examples/" + file;
}

inline std::vector<std::string> exampleFiles() {
  std::vector<std::string> files;
  const std::filesystem::path dir =
      std::filesystem::path(fuserlab::test::sourceDir()) / "resources" / "examples";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".py") {
      files.push_back(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One reduction-family segment of a compiled fusion, bound at its sizes as
// the executor binds it (runtime::bindSegment: fusion inputs as given,
// intermediates dense in their allocation order).
struct BoundSegment : runtime::BoundSegment {
  const ir::Fusion& fusion() const { return *group->segment; }
  const ReductionParams& params() const { return std::get<ReductionParams>(group->choice.params); }
};

// A compiled example (one fusion definition) with its reduction-family
// segments bound.
struct CompiledExample {
  std::string label;
  runtime::Arguments args;
  scheduler::DeviceSpec device;
  runtime::CompiledFusion compiled;
  std::vector<BoundSegment> segments;
};

inline std::vector<std::unique_ptr<CompiledExample>> compileExample(const std::string& file,
                                                                    const std::string& deviceName,
                                                                    const std::string& upcast) {
  std::vector<std::unique_ptr<CompiledExample>> out;
  // The compiled result owns its (rewritten) copy of the fusion.
  const frontend::Script parsed = frontend::readScriptFile(examplePath(file));
  const frontend::Script* script = &parsed;
  for (size_t d = 0; d < script->definitions.size(); ++d) {
    const std::vector<frontend::InputSpec>* specs = script->inputsFor(d);
    if (specs == nullptr && d == script->executed && script->inputs) {
      specs = &*script->inputs;
    }
    if (specs == nullptr) continue;
    auto example = std::make_unique<CompiledExample>();
    example->label = file + ":" + script->definitions[d].functionName + " on " + deviceName +
                     " (upcast=" + upcast + ")";
    example->device = scheduler::findBuiltinDevice(deviceName).value();
    example->args = frontend::makeInputShapes(*specs);
    compiler::CompileOptions options;
    options.set("upcast", upcast);
    example->compiled = runtime::compileFusion(*script->definitions[d].fusion, options,
                                               example->device, example->args);
    for (const segmenter::SegmentedGroup& group : example->compiled.segmented->groups()) {
      if (!isReductionFamily(group.choice.type)) continue;
      BoundSegment bound;
      static_cast<runtime::BoundSegment&>(bound) =
          runtime::bindSegment(example->compiled, group.id, example->device, example->args);
      example->segments.push_back(std::move(bound));
    }
    out.push_back(std::move(example));
  }
  return out;
}

// With FUSERLAB_DUMP_KERNELS=DIR, every kernel generated here is written to
// DIR/<n>.cu for reading.
inline GeneratedKernel generate(const BoundSegment& segment, const ReductionParams& params) {
  GeneratedKernel kernel = generateKernel(segment.fusion(), segment.group->choice.type, params,
                                          segment.info, "variant_kernel");
  if (const char* dir = std::getenv("FUSERLAB_DUMP_KERNELS")) {
    static std::atomic<int> count{0};
    std::ofstream(std::string(dir) + "/" + std::to_string(count++) + ".cu") << kernel.source;
  }
  return kernel;
}

// The bound segment of `file`'s only reduction-family kernel on the H100.
struct OnlySegment {
  std::vector<std::unique_ptr<CompiledExample>> examples;
  const BoundSegment& segment() const { return examples.front()->segments.front(); }
};

inline OnlySegment onlySegment(const std::string& file) {
  OnlySegment only{compileExample(file, "h100", "privatize")};
  EXPECT_EQ(only.examples.size(), 1u);
  EXPECT_EQ(only.examples.front()->segments.size(), 1u) << file;
  return only;
}

}  // namespace fuserlab::codegen
