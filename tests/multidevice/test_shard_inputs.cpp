// shardInputs: a whole input becomes one device's shard in allocation layout
// (DIDx axis of size 1), the values being that device's slice.
#include <gtest/gtest.h>

#include <string>

#include "core/compiler/shard_inputs.h"
#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/passes/pipeline.h"
#include "tests/source_dir.h"

namespace fuserlab::runtime {
namespace {

TEST(ShardInputsTest, EachDeviceGetsItsRowsInAllocationShape) {
  frontend::Script script = frontend::readScriptFile(
      fuserlab::test::sourceDir() + "/resources/examples/multidevice/residual_add.py");
  auto preseg = passes::runPasses(script.fusion(), {}, nullptr);
  Tensor x = Tensor::empty(ir::DataType::Float, {8, 6});
  Tensor y = Tensor::empty(ir::DataType::Float, {8, 6});
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 6; ++j) {
      x.set({i, j}, static_cast<double>(i * 6 + j));
      y.set({i, j}, -static_cast<double>(i * 6 + j));
    }
  }
  Arguments local = shardInputs(*preseg, {x, y}, 1);
  for (const Argument& arg : local) {
    const Tensor& shard = std::get<Tensor>(arg);
    // Allocation [DIDx{2}, 4, 6]: device 1 holds rows 4..7.
    EXPECT_EQ(shard.sizes(), (std::vector<int64_t>{1, 4, 6}));
  }
  EXPECT_EQ(std::get<Tensor>(local[0]).item({0, 0, 0}), 24.0);
  EXPECT_EQ(std::get<Tensor>(local[1]).item({0, 3, 5}), -47.0);
  EXPECT_THROW(shardInputs(*preseg, {x, y}, 2), UserError);
}

}  // namespace
}  // namespace fuserlab::runtime
