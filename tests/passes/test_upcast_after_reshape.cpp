// upcast_after_reshape: reshape(cast(x)) becomes cast(reshape(x)) when the
// cast widens a floating dtype and nothing else reads it (issue 45, item 2).
#include <gtest/gtest.h>

#include "core/passes/upcast_after_reshape.h"
#include "tests/passes/pass_fixture.h"

namespace fuserlab::passes::test {
namespace {

class UpcastAfterReshapeTest : public PassFixture {
 protected:
  PassRecord move() { return run(UpcastAfterReshapePass()); }
};

TEST_F(UpcastAfterReshapeTest, GroupNormsReshapeReadsTheHalfInput) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.reshape(T1, new_shape=[2, 4, -1])
T3, T4 = fd.ops.var_mean(T2, dims=[2], correction=0, keepdim=False)
fd.add_output(T3)
fd.add_output(T4)
)");
  const PassRecord record = move();
  ASSERT_EQ(record.rewrites.size(), 1u);
  EXPECT_NE(record.rewrites[0].find("moved T1 = cast(T0, Float) after T2 = reshape(T1)"),
            std::string::npos)
      << record.rewrites[0];
  // The reshape now reads the input, and the welford a cast of it.
  const std::string printed = ir();
  EXPECT_NE(printed.find("= reshape(T0"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("cast(T0"), std::string::npos) << printed;
}

TEST_F(UpcastAfterReshapeTest, AnUpcastReadElsewhereOrANarrowingCastStays) {
  read(R"(
T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
T1 = fd.ops.cast(T0, dtype=DataType.Float)
T2 = fd.ops.reshape(T1, new_shape=[-1])
T3 = fd.ops.relu(T1)
fd.add_output(T2)
fd.add_output(T3)
T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
T5 = fd.ops.cast(T4, dtype=DataType.BFloat16)
T6 = fd.ops.reshape(T5, new_shape=[-1])
T7 = fd.ops.cast(T6, dtype=DataType.Float)
fd.add_output(T7)
)");
  const std::string before = ir();
  const PassRecord record = move();
  EXPECT_TRUE(record.rewrites.empty()) << record.rewrites.front();
  EXPECT_EQ(ir(), before);
}

}  // namespace
}  // namespace fuserlab::passes::test
