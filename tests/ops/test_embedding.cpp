// embedding_fwd: the output is the input's shape plus the embedding axis, in
// the weight's dtype; padding_idx and max_norm are recorded as given or not;
// operands and options are checked with messages naming the op.
#include "core/ops/embedding.h"

#include "tests/ops/ops_fixture.h"

namespace fuserlab::ops::test {
namespace {

class EmbeddingTest : public OpsFixture {};

TEST_F(EmbeddingTest, OutputIsTheInputShapeAndTheEmbeddingAxis) {
  TensorView* input = tensor({2, -1}, DataType::Int32);
  TensorView* weight = tensor({100, 16}, DataType::BFloat16);
  TensorView* out = embeddingFwd(input, weight, nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{2, -1, 16}));
  EXPECT_EQ(out->dtype(), DataType::BFloat16);
  const ir::Expr* def = out->definition();
  EXPECT_EQ(def->type(), ExprType::Embedding);
  EXPECT_EQ(def->attrs().flags, (std::vector<bool>{false, false}));
  // [input, weight, norm_type (2.0), scale_grad_by_freq, sparse]
  ASSERT_EQ(def->inputs().size(), 5u);
  EXPECT_EQ(def->input(2)->as<Scalar>()->constDouble(), 2.0);
}

TEST_F(EmbeddingTest, GivenOptionsFollowTheRequiredInputs) {
  TensorView* input = tensor({5}, DataType::Int);
  TensorView* weight = tensor({10, 4});
  Scalar* padding = c(-1);
  Scalar* maxNorm = fusion_.constDouble(1.0);
  TensorView* out =
      embeddingFwd(input, weight, padding, maxNorm, nullptr, nullptr, fusion_.constBool(true));
  const ir::Expr* def = out->definition();
  EXPECT_EQ(def->attrs().flags, (std::vector<bool>{true, true}));
  ASSERT_EQ(def->inputs().size(), 7u);
  EXPECT_EQ(def->input(5), padding);
  EXPECT_EQ(def->input(6), maxNorm);
}

TEST_F(EmbeddingTest, Errors) {
  TensorView* weight = tensor({10, 4});
  TensorView* input = tensor({5}, DataType::Int);
  expectUserError(
      [&] { embeddingFwd(tensor({5}), weight, nullptr, nullptr, nullptr, nullptr, nullptr); },
      {"embedding_fwd", "the input", "Float", "integer indices"});
  expectUserError(
      [&] {
        embeddingFwd(tensor({}, DataType::Int), weight, nullptr, nullptr, nullptr, nullptr,
                     nullptr);
      },
      {"embedding_fwd", "0-dim"});
  expectUserError(
      [&] {
        embeddingFwd(input, tensor({10, 4, 2}), nullptr, nullptr, nullptr, nullptr, nullptr);
      },
      {"embedding_fwd", "rank 3", "[num_embeddings, embedding_dim]"});
  expectUserError([&] { embeddingFwd(input, weight, c(10), nullptr, nullptr, nullptr, nullptr); },
                  {"embedding_fwd", "padding_idx 10", "10 embeddings"});
  expectUserError(
      [&] {
        embeddingFwd(input, tensor({10, 4}, DataType::Int), nullptr, fusion_.constDouble(1.0),
                     nullptr, nullptr, nullptr);
      },
      {"embedding_fwd", "max_norm", "Int", "floating-point weight"});
  expectUserError([&] { embeddingFwd(input, weight, nullptr, nullptr, nullptr, c(1), nullptr); },
                  {"embedding_fwd", "scale_grad_by_freq", "Int", "Bool"});
}

}  // namespace
}  // namespace fuserlab::ops::test
