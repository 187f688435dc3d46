// The GPU executor's input signature (CPU test: no GPU needed): what makes
// two calls share a compiled fusion, and what does not.
#include <gtest/gtest.h>

#include "core/runtime/gpu_executor.h"
#include "core/runtime/run_keys.h"

namespace fuserlab::runtime {
namespace {

using ir::DataType;

std::string sig(const Tensor& t) { return inputSignature({t}); }

TEST(InputSignatureTest, SizesAloneDoNotChangeIt) {
  EXPECT_EQ(sig(Tensor::empty(DataType::Float, {4, 8})),
            sig(Tensor::empty(DataType::Float, {5, 9})));
}

TEST(InputSignatureTest, DtypeRankSizeOneAxesOrderContiguityAndAlignmentDo) {
  const std::string a = sig(Tensor::empty(DataType::Float, {4, 8}));
  EXPECT_NE(a, sig(Tensor::empty(DataType::Half, {4, 8})));
  EXPECT_NE(a, sig(Tensor::empty(DataType::Float, {4, 8, 2})));
  EXPECT_NE(a, sig(Tensor::empty(DataType::Float, {1, 8})));
  EXPECT_NE(a, sig(Tensor::empty(DataType::Float, {8, 4}).permute({1, 0})));
  EXPECT_NE(a, sig(Tensor::empty(DataType::Float, {4, 16}).asStrided({4, 8}, {16, 1}, 0)));
  EXPECT_NE(a, sig(Tensor::empty(DataType::Float, {40}).asStrided({4, 8}, {8, 1}, 1)));
  EXPECT_NE(a, sig(Tensor::empty(DataType::Float, {8}).asStrided({4, 8}, {0, 1}, 0)));
}

TEST(InputSignatureTest, ScalarsBySortOnly) {
  EXPECT_EQ(inputSignature({ir::ScalarValue(1.5)}), inputSignature({ir::ScalarValue(2.5)}));
  EXPECT_NE(inputSignature({ir::ScalarValue(1.5)}), inputSignature({ir::ScalarValue(int64_t{2})}));
}

}  // namespace
}  // namespace fuserlab::runtime
