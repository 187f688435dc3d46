#include <gtest/gtest.h>

#include "core/ir/data_type.h"
#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

using DT = DataType;

TEST(DataTypeTest, PromotesByCategoryThenWidth) {
  EXPECT_EQ(promote(DT::Bool, DT::Int32), DT::Int32);
  EXPECT_EQ(promote(DT::Int32, DT::Int), DT::Int);
  EXPECT_EQ(promote(DT::Int, DT::Half), DT::Half);
  EXPECT_EQ(promote(DT::Half, DT::Float), DT::Float);
  EXPECT_EQ(promote(DT::Float, DT::Double), DT::Double);
  EXPECT_EQ(promote(DT::BFloat16, DT::BFloat16), DT::BFloat16);
  EXPECT_EQ(promote(DT::Null, DT::BFloat16), DT::BFloat16);
  EXPECT_EQ(promote(DT::Double, DT::Null), DT::Double);
}

TEST(DataTypeTest, Bf16WithHalfGivesFloat) {
  EXPECT_EQ(promote(DT::BFloat16, DT::Half), DT::Float);
  EXPECT_EQ(promote(DT::Half, DT::BFloat16), DT::Float);
  EXPECT_EQ(promoteOperands({DT::BFloat16, DT::Half}, {}), DT::Float);
}

TEST(DataTypeTest, PromotionIsSymmetric) {
  const DT all[] = {DT::Bool, DT::Int32, DT::Int, DT::Half, DT::BFloat16, DT::Float, DT::Double};
  for (DT a : all) {
    for (DT b : all) {
      EXPECT_EQ(promote(a, b), promote(b, a)) << toString(a) << " with " << toString(b);
    }
  }
}

TEST(DataTypeTest, ScalarOperandsPromoteOnlyAcrossCategories) {
  // An int tensor with a double scalar: the floating category's default.
  EXPECT_EQ(promoteOperands({DT::Int}, {DT::Double}), DT::Float);
  EXPECT_EQ(promoteOperands({DT::Int32}, {DT::Double}), DT::Float);
  // bool tensor with an int scalar: the integral default.
  EXPECT_EQ(promoteOperands({DT::Bool}, {DT::Int}), DT::Int);
  EXPECT_EQ(promoteOperands({DT::Bool}, {DT::Bool}), DT::Bool);
  // Same category: the tensor's dtype wins, however wide the scalar.
  EXPECT_EQ(promoteOperands({DT::BFloat16}, {DT::Double}), DT::BFloat16);
  EXPECT_EQ(promoteOperands({DT::Int32}, {DT::Int}), DT::Int32);
  EXPECT_EQ(promoteOperands({DT::Half}, {DT::Int}), DT::Half);
  // Scalars only: ordinary promotion among them.
  EXPECT_EQ(promoteOperands({}, {DT::Int, DT::Double}), DT::Double);
  EXPECT_EQ(promoteOperands({}, {DT::Bool, DT::Int32}), DT::Int32);
}

TEST(DataTypeTest, ParsesNvfuserNames) {
  EXPECT_EQ(parseDataType("BFloat16"), DT::BFloat16);
  EXPECT_EQ(parseDataType("Int"), DT::Int);
  EXPECT_EQ(parseDataType("Int32"), DT::Int32);
  EXPECT_EQ(parseDataType("Null"), DT::Null);
  EXPECT_EQ(parseDataType("Float64"), std::nullopt);
  EXPECT_EQ(parseDataType("float"), std::nullopt);
  for (DT dtype : {DT::Bool, DT::Int32, DT::Int, DT::Half, DT::BFloat16, DT::Float, DT::Double}) {
    EXPECT_EQ(parseDataType(toString(dtype)), dtype);
    EXPECT_EQ(parseShortName(shortName(dtype)), dtype);
  }
}

TEST(DataTypeTest, Float8IsAKnownButUnsupportedName) {
  try {
    parseDataType("Float8_e4m3fn");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(e.message().find("DataType.Float8_e4m3fn is not supported"), std::string::npos)
        << e.message();
  }
  EXPECT_THROW(parseDataType("ComplexFloat"), UserError);
}

TEST(DataTypeTest, ParsesTorchAndShortNames) {
  EXPECT_EQ(parseTorchDtype("int"), DT::Int32);
  EXPECT_EQ(parseTorchDtype("long"), DT::Int);
  EXPECT_EQ(parseTorchDtype("bfloat16"), DT::BFloat16);
  EXPECT_EQ(parseTorchDtype("float"), DT::Float);
  EXPECT_EQ(parseTorchDtype("tensor"), std::nullopt);
  EXPECT_THROW(parseTorchDtype("float8_e5m2"), UserError);
  EXPECT_THROW(parseTorchDtype("uint8"), UserError);
  EXPECT_EQ(parseShortName("null"), std::nullopt);
  EXPECT_EQ(parseShortName("bf16"), DT::BFloat16);
}

TEST(DataTypeTest, SizesAndCategories) {
  EXPECT_EQ(sizeInBytes(DT::BFloat16), 2);
  EXPECT_EQ(sizeInBytes(DT::Int), 8);
  EXPECT_EQ(sizeInBytes(DT::Bool), 1);
  EXPECT_TRUE(isFloatingPoint(DT::Half));
  EXPECT_FALSE(isFloatingPoint(DT::Int));
  EXPECT_TRUE(isIntegral(DT::Int32));
  EXPECT_FALSE(isIntegral(DT::Bool));
  EXPECT_TRUE(isReducedPrecision(DT::BFloat16));
  EXPECT_FALSE(isReducedPrecision(DT::Float));
  EXPECT_EQ(irName(DT::Int), "int64_t");
}

}  // namespace
}  // namespace fuserlab::ir
