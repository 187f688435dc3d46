// Shared setup of the heuristics-database tests: a fresh folder per test for
// database files, entries made up from a few numbers, and a script's fusion
// bound at metadata-only input shapes on the built-in H100.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/compiler/input_description.h"
#include "core/frontend/script.h"
#include "core/ir/evaluator.h"
#include "core/scheduler/device_spec.h"
#include "core/scheduler/heuristic_params.h"
#include "core/tensor/tensor.h"
#include "db/compiler_version.h"
#include "db/entry.h"
#include "db/segment_key.h"
#include "tests/source_dir.h"

namespace fuserlab::db::testing_support {

//! One pointwise op over a 2-D Float input: the fusion most entries key.
inline constexpr const char* kPointwise = R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
T1 = fd.ops.exp(T0)
fd.add_output(T1)
)";

//! Seed 001's LayerNorm with its constant shapes (16, 128, 1600 in
//! define_scalar) taken from the input instead, so that one fusion runs at
//! other hidden sizes (a size bucket) without contradicting itself: the
//! compiler refuses sizes the fusion's constants contradict.
inline std::string seed001AtAnySize() {
  std::ifstream in(fuserlab::test::sourceDir() +
                   "/resources/examples/seed001_nanogpt_layer_norm.py");
  std::stringstream text;
  text << in.rdbuf();
  std::string script = text.str();
  const std::pair<std::string, std::string> constants[] = {
      {"fd.define_scalar(16, dtype=DataType.Int)", "T0.size(0)"},
      {"fd.define_scalar(128, dtype=DataType.Int)", "T0.size(1)"},
      {"fd.define_scalar(1600, dtype=DataType.Int)", "T0.size(2)"}};
  for (const auto& [from, to] : constants) {
    for (size_t at = script.find(from); at != std::string::npos; at = script.find(from, at)) {
      script.replace(at, from.size(), to);
    }
  }
  return script;
}

class DatabaseFixture : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("fuserlab_db_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" +
            std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

//! Pointwise params with the given vectorization and block size.
inline report::Json pointwiseParams(int64_t vectorization, int64_t blockX) {
  scheduler::PointwiseParams params;
  params.vectorizationFactor = vectorization;
  params.blockDimX = blockX;
  return params.toJson();
}

//! An entry for a made-up pointwise segment `n` at `sizes` on the H100.
inline Entry makeEntry(int n, const std::string& sizes, const report::Json& params,
                       std::optional<double> medianNs = std::nullopt, int64_t samples = 10) {
  Entry entry;
  entry.segment.structureHash = hex64(0x1000 + n);
  entry.segment.scheduler = "pointwise";
  entry.segment.sizes = sizes;
  entry.segment.sizeBucket = sizes;
  entry.segment.fusionIr = "segment " + std::to_string(n) + "\n";
  entry.device = DeviceRecord::fromSpec(scheduler::defaultDevice());
  entry.device.fingerprint = deviceFingerprint(scheduler::defaultDevice());
  entry.paramsSchema = scheduler::PointwiseParams::kSchemaVersion;
  entry.minCompilerVersion = std::string(compilerVersion());
  const auto parsed = scheduler::paramsFromJson(scheduler::SchedulerType::Pointwise, params);
  entry.params = scheduler::paramsToJson(parsed);
  entry.paramsHash = hex64(scheduler::paramsHash(parsed));
  entry.origin = medianNs ? "tuner" : "manual";
  entry.run = RunRecord::now("test");
  entry.createdAt = entry.run.createdAt;
  if (medianNs) {
    MeasurementRecord m;
    m.params = entry.params;
    m.paramsHash = entry.paramsHash;
    m.samples = samples;
    m.medianNs = *medianNs;
    m.run = entry.run;
    entry.measurement = m;
  }
  return entry;
}

//! A metadata-only contiguous tensor argument.
inline runtime::Argument shape(ir::DataType dtype, std::vector<int64_t> sizes,
                               int64_t storageOffset = 0) {
  auto strides = runtime::Tensor::contiguousStrides(sizes);
  return runtime::metadataOnly(dtype, std::move(sizes), std::move(strides), storageOffset);
}

//! A definition's fusion bound at `inputs`: what a provider is asked with.
struct BoundFusion {
  std::unique_ptr<ir::Fusion> fusion;
  std::unique_ptr<ir::ExpressionEvaluator> evaluator;
  scheduler::SegmentRuntimeInfo info;

  //! `body`: the lines of a definition's body, unindented.
  BoundFusion(std::string_view body, const runtime::Arguments& inputs) {
    std::string script = "def fusion(fd : FusionDefinition) -> None :\n";
    size_t begin = 0;
    while (begin < body.size()) {
      size_t end = body.find('\n', begin);
      if (end == std::string_view::npos) end = body.size();
      script += "    " + std::string(body.substr(begin, end - begin)) + "\n";
      begin = end + 1;
    }
    frontend::Script parsed = frontend::readScript(script, "test.py");
    fusion = std::move(parsed.definitions.at(parsed.executed).fusion);
    evaluator = std::make_unique<ir::ExpressionEvaluator>();
    info.device = &scheduler::defaultDevice();
    info.evaluator = evaluator.get();
    info.inputs = runtime::describeInputs(*fusion, inputs, *evaluator);
  }
  std::string hash() const { return hex64(structuralHash(*fusion, info)); }
};

}  // namespace fuserlab::db::testing_support
