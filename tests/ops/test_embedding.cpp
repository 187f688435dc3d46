// embedding_fwd: the output is the input's shape plus the embedding axis, in
// the weight's dtype. Without max_norm it is built from index_select and
// reshape (so the GPU runs it); with max_norm it is an Embedding expr, which
// records padding_idx and max_norm as given or not. Operands and options are
// checked with messages naming the op.
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
}

TEST_F(EmbeddingTest, WithoutMaxNormItIsAnIndexSelectOfFlattenedIndices) {
  TensorView* input = tensor({2, -1}, DataType::Int);
  TensorView* weight = tensor({100, 16}, DataType::BFloat16);
  // padding_idx, scale_grad_by_freq and sparse change only the backward.
  TensorView* out = embeddingFwd(input, weight, c(0), nullptr, fusion_.constDouble(1.0),
                                 fusion_.constBool(true), fusion_.constBool(true));
  const ir::Expr* unflatten = out->definition();
  ASSERT_EQ(unflatten->type(), ExprType::Reshape);
  const ir::Expr* select = unflatten->input(0)->definition();
  ASSERT_EQ(select->type(), ExprType::IndexSelect);
  EXPECT_EQ(select->input(0), weight);
  EXPECT_EQ(select->attrs().dim, 0);
  const ir::Expr* flatten = select->input(1)->definition();
  ASSERT_EQ(flatten->type(), ExprType::Reshape);
  EXPECT_EQ(flatten->input(0), input);
  EXPECT_EQ(extents(select->output(0)->as<TensorView>()), (std::vector<int64_t>{-1, 16}));

  // 1-D indices need no reshape.
  TensorView* ids = tensor({7}, DataType::Int32);
  TensorView* rows = embeddingFwd(ids, weight, nullptr, nullptr, nullptr, nullptr, nullptr);
  ASSERT_EQ(rows->definition()->type(), ExprType::IndexSelect);
  EXPECT_EQ(rows->definition()->input(1), ids);
  EXPECT_EQ(extents(rows), (std::vector<int64_t>{7, 16}));
}

TEST_F(EmbeddingTest, MaxNormKeepsTheEmbeddingExpr) {
  TensorView* input = tensor({2, 3}, DataType::Int);
  TensorView* weight = tensor({100, 16});
  TensorView* out =
      embeddingFwd(input, weight, nullptr, fusion_.constDouble(1.0), nullptr, nullptr, nullptr);
  EXPECT_EQ(extents(out), (std::vector<int64_t>{2, 3, 16}));
  const ir::Expr* def = out->definition();
  EXPECT_EQ(def->type(), ExprType::Embedding);
  EXPECT_EQ(def->attrs().flags, (std::vector<bool>{false, true}));
  // [input, weight, norm_type (2.0), scale_grad_by_freq, sparse, max_norm]
  ASSERT_EQ(def->inputs().size(), 6u);
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
