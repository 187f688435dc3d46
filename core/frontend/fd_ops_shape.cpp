// The shape, factory, indexing, sorting and library-call ops of fd.ops (see
// fd_ops_internal.h for how they join the elementwise half). scatter,
// index_put_accumulate, embedding_fwd, argsort and topk run on the CPU
// reference only (core/scheduler/expr_eval/cpu_reference_ops.h); the scans
// (cumsum, cumprod, cummin, cummax) have a kernel of their own
// (core/codegen/scan_emitter.h).
#include <array>

#include "core/frontend/fd_ops.h"
#include "core/frontend/fd_ops_internal.h"
#include "core/ops/alias.h"
#include "core/ops/composite.h"
#include "core/ops/embedding.h"
#include "core/ops/factory.h"
#include "core/ops/operand_checks.h"
#include "core/ops/scan.h"
#include "core/ops/scatter.h"
#include "core/ops/sorting.h"

namespace fuserlab::frontend {
namespace {

using ir::DataType;
using ir::TensorView;
using Kind = Value::Kind;

Value tensorResult(TensorView* tv) { return Value::fusionVal(tv); }

Value broadcast(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"is_broadcast_dim", true}}, &c.fusion);
  return tensorResult(ops::broadcast(args.tensor("arg"), args.boolList("is_broadcast_dim")));
}

Value broadcastInDim(const OpCall& c) {
  const EvaluatedCall call = renameKeyword(c.call, "output_shape", "shape");
  BoundArguments args(call, {{"arg", true}, {"shape", true}, {"broadcast_dims", true}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  std::vector<ir::Scalar*> shape = args.sizeList("shape");
  return tensorResult(ops::broadcastInDim(x, shape, args.intList("broadcast_dims")));
}

Value expand(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"shape", true}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  return tensorResult(ops::expand(x, args.sizeList("shape")));
}

Value reshape(const OpCall& c) {
  // Older scripts pass reshape(arg, original_shape, new_shape).
  const bool withOriginal = c.call.positional.size() >= 3;
  std::vector<ParameterSpec> params = {
      {"arg", true}, {"new_shape", true}, {"original_shape", false}};
  if (withOriginal) {
    params = {{"arg", true}, {"original_shape", false}, {"new_shape", true}};
  }
  BoundArguments args(c.call, params, &c.fusion);
  TensorView* x = args.tensor("arg");
  return tensorResult(ops::reshape(x, args.sizeList("new_shape")));
}

Value permute(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"dims", true}}, &c.fusion);
  return tensorResult(ops::permute(args.tensor("arg"), args.intList("dims")));
}

Value squeeze(const OpCall& c) {
  // Older scripts pass squeeze(arg, original_shape, dims).
  const bool withOriginal =
      c.call.positional.size() >= 3 && c.call.positional[2].value.isSequence();
  std::vector<ParameterSpec> params = {{"arg", true}, {"dims", true}, {"squeeze_expanded", false}};
  if (withOriginal) {
    params = {{"arg", true}, {"original_shape", false}, {"dims", true}};
  }
  BoundArguments args(c.call, params, &c.fusion);
  TensorView* x = args.tensor("arg");
  return tensorResult(ops::squeeze(x, args.intList("dims", /*acceptSingle=*/true),
                                   args.boolean("squeeze_expanded", false)));
}

Value slice(const OpCall& c) {
  BoundArguments args(c.call,
                      {{"arg", true},
                       {"start_indices", true},
                       {"end_indices", true},
                       {"strides", false},
                       {"manual_normalization", false}},
                      &c.fusion);
  TensorView* x = args.tensor("arg");
  std::vector<ir::Scalar*> starts = args.sizeList("start_indices");
  std::vector<ir::Scalar*> stops = args.sizeList("end_indices");
  std::vector<ir::Scalar*> steps;
  if (args.has("strides")) steps = args.sizeList("strides");
  args.boolean("manual_normalization", false);
  return tensorResult(ops::slice(x, starts, stops, steps));
}

Value pad(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"pad_widths", true}, {"value", false}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  std::vector<ir::Scalar*> widths = args.sizeList("pad_widths");
  return tensorResult(ops::pad(x, widths, args.optionalScalar("value")));
}

Value cat(const OpCall& c) {
  BoundArguments args(c.call, {{"tensors", true}, {"dim", false}, {"manual_padding", false}},
                      &c.fusion);
  std::vector<TensorView*> tensors = args.tensorList("tensors");
  const int64_t dim = args.integer("dim", 0);
  args.boolean("manual_padding", false);
  return tensorResult(ops::cat(tensors, dim));
}

Value set(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  return tensorResult(c.op == "set" ? ops::set(x) : ops::segmentSet(x));
}

Value strideOrder(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"stride_order", true}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  return tensorResult(ops::strideOrder(x, args.intList("stride_order")));
}

Value full(const OpCall& c) {
  BoundArguments args(c.call, {{"shape", true}, {"fill_value", true}, {"dtype", true}}, &c.fusion);
  std::vector<ir::Scalar*> shape = args.sizeList("shape");
  ir::Scalar* fill = args.scalar("fill_value");
  return tensorResult(ops::full(c.fusion, shape, fill, args.dtype("dtype")));
}

Value iota(const OpCall& c) {
  BoundArguments args(
      c.call, {{"length", true}, {"start", false}, {"step", false}, {"dtype", false}}, &c.fusion);
  ir::Scalar* length = args.scalar("length");
  ir::Scalar* start = args.optionalScalar("start");
  ir::Scalar* step = args.optionalScalar("step");
  return tensorResult(ops::iota(c.fusion, length, start, step, args.dtype("dtype", DataType::Int)));
}

Value indexing(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"index", true}, {"dim", true}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  TensorView* index = args.tensor("index");
  const int64_t dim = args.integer("dim");
  if (c.op == "index_select") {
    return tensorResult(ops::indexSelect(x, index, dim));
  }
  return tensorResult(ops::takeAlongAxis(x, index, dim));
}

// select(arg, index, dim): index is a scalar (an int or an integer scalar).
Value select(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"index", true}, {"dim", true}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  const Argument& index = *args.find("index");
  if (index.value.isFusionVal() && index.value.val->isA<TensorView>()) {
    args.failAt(index,
                "fd.ops.select takes a scalar index; for a tensor of "
                "indices use fd.ops.index_select");
  }
  ir::Scalar* position = args.scalar("index");
  return tensorResult(ops::select(x, position, args.integer("dim")));
}

// scatter(arg, index, src, dim); the old frontend calls the first `arg1`.
Value scatter(const OpCall& c) {
  const EvaluatedCall call = renameKeyword(c.call, "arg1", "arg");
  BoundArguments args(call, {{"arg", true}, {"index", true}, {"src", true}, {"dim", true}},
                      &c.fusion);
  TensorView* x = args.tensor("arg");
  TensorView* index = args.tensor("index");
  ir::Val* src = args.operand("src");
  return tensorResult(ops::scatter(x, index, src, args.integer("dim")));
}

Value indexPutAccumulate(const OpCall& c) {
  BoundArguments args(c.call, {{"acc", true}, {"index", true}, {"value", true}}, &c.fusion);
  TensorView* acc = args.tensor("acc");
  TensorView* index = args.tensor("index");
  return tensorResult(ops::indexPutAccumulate(acc, index, args.tensor("value")));
}

Value embeddingFwd(const OpCall& c) {
  BoundArguments args(c.call,
                      {{"input", true},
                       {"weight", true},
                       {"padding_idx", false},
                       {"max_norm", false},
                       {"norm_type", false},
                       {"scale_grad_by_freq", false},
                       {"sparse", false}},
                      &c.fusion);
  TensorView* input = args.tensor("input");
  TensorView* weight = args.tensor("weight");
  ir::Scalar* paddingIdx = args.optionalScalar("padding_idx");
  ir::Scalar* maxNorm = args.optionalScalar("max_norm");
  ir::Scalar* normType = args.optionalScalar("norm_type");
  ir::Scalar* scaleGradByFreq = args.optionalScalar("scale_grad_by_freq");
  ir::Scalar* sparse = args.optionalScalar("sparse");
  return tensorResult(
      ops::embeddingFwd(input, weight, paddingIdx, maxNorm, normType, scaleGradByFreq, sparse));
}

Value argsort(const OpCall& c) {
  BoundArguments args(
      c.call, {{"arg", true}, {"dim", true}, {"descending", false}, {"stable", false}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  const int64_t dim = args.integer("dim");
  const bool descending = args.boolean("descending", false);
  const bool stable = args.boolean("stable", false);
  return tensorResult(ops::argsort(x, dim, descending, stable));
}

// topk(arg, k, dim=-1, largest=True, sorted=False) -> (values, indices).
Value topk(const OpCall& c) {
  BoundArguments args(
      c.call, {{"arg", true}, {"k", true}, {"dim", false}, {"largest", false}, {"sorted", false}},
      &c.fusion);
  TensorView* x = args.tensor("arg");
  ir::Scalar* k = args.scalar("k");
  const int64_t dim = args.integer("dim", -1);
  const bool largest = args.boolean("largest", true);
  const bool sorted = args.boolean("sorted", false);
  ops::TopKResult result = ops::topk(x, k, dim, largest, sorted);
  return Value::tuple({tensorResult(result.values), tensorResult(result.indices)});
}

// cumsum / cumprod / cummin / cummax(arg, dim, init=None), as nvfuser_direct
// binds them: a scan along dim, x's dtype.
Value scan(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"dim", true}, {"init", false}}, &c.fusion);
  TensorView* x = args.tensor("arg");
  const int64_t dim = args.integer("dim");
  ir::Scalar* init = args.optionalScalar("init");
  ir::BinaryOpType op = ir::BinaryOpType::Add;
  if (c.op == "cumprod") op = ir::BinaryOpType::Mul;
  if (c.op == "cummin") op = ir::BinaryOpType::Minimum;
  if (c.op == "cummax") op = ir::BinaryOpType::Maximum;
  return tensorResult(ops::scan(x, dim, op, init));
}

// triu(input, diagonal=0): the upper triangle of the last two axes.
Value triu(const OpCall& c) {
  BoundArguments args(c.call, {{"input", true}, {"diagonal", false}}, &c.fusion);
  TensorView* x = args.tensor("input");
  ir::Scalar* diagonal = args.optionalScalar("diagonal");
  if (diagonal == nullptr) diagonal = c.fusion.constInt(0);
  return tensorResult(ops::triu(x, diagonal));
}

Value matmul(const OpCall& c) {
  BoundArguments args(c.call, {{"arg1", true}, {"arg2", true}}, &c.fusion);
  TensorView* a = args.tensor("arg1");
  return tensorResult(ops::matmul(a, args.tensor("arg2")));
}

Value linear(const OpCall& c) {
  BoundArguments args(c.call, {{"arg1", true}, {"arg2", true}, {"bias", false}}, &c.fusion);
  TensorView* a = args.tensor("arg1");
  TensorView* weight = args.tensor("arg2");
  return tensorResult(ops::linear(a, weight, args.optionalTensor("bias")));
}

Value sdpfaFwd(const OpCall& c) {
  BoundArguments args(c.call,
                      {{"query", true},
                       {"key", true},
                       {"value", true},
                       {"dropout_p", false},
                       {"is_causal", false},
                       {"scale", false}},
                      &c.fusion);
  TensorView* q = args.tensor("query");
  TensorView* k = args.tensor("key");
  TensorView* v = args.tensor("value");
  ir::Scalar* dropout = args.optionalScalar("dropout_p");
  ir::Scalar* causal = args.optionalScalar("is_causal");
  ir::Scalar* scale = args.optionalScalar("scale");
  ops::SdpaResult result = ops::sdpfaFwd(q, k, v, dropout, causal, scale);
  return Value::tuple({tensorResult(result.output), tensorResult(result.logSumExp),
                       tensorResult(result.philoxSeed), tensorResult(result.philoxOffset)});
}

Value size(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}, {"dim", true}}, &c.fusion);
  return extentOf(args.tensor("arg"), args.integer("dim"));
}

Value shape(const OpCall& c) {
  BoundArguments args(c.call, {{"arg", true}}, &c.fusion);
  return shapeOf(args.tensor("arg"));
}

struct ShapeOp {
  std::string_view name;
  OpHandler handler;
};

constexpr std::array<ShapeOp, 33> kShapeOps = {{
    {"argsort", argsort},
    {"broadcast", broadcast},
    {"broadcast_in_dim", broadcastInDim},
    {"cat", cat},
    {"cummax", scan},
    {"cummin", scan},
    {"cumprod", scan},
    {"cumsum", scan},
    {"embedding_fwd", embeddingFwd},
    {"expand", expand},
    {"full", full},
    {"gather", indexing},
    {"index_put_accumulate", indexPutAccumulate},
    {"index_select", indexing},
    {"iota", iota},
    {"linear", linear},
    {"matmul", matmul},
    {"pad", pad},
    {"permute", permute},
    {"reshape", reshape},
    {"scatter", scatter},
    {"sdpfa_fwd", sdpfaFwd},
    {"segment_set", set},
    {"select", select},
    {"set", set},
    {"shape", shape},
    {"size", size},
    {"slice", slice},
    {"squeeze", squeeze},
    {"stride_order", strideOrder},
    {"take_along_axis", indexing},
    {"topk", topk},
    {"triu", triu},
}};

}  // namespace

OpHandler findShapeOp(std::string_view op) {
  for (const ShapeOp& entry : kShapeOps) {
    if (entry.name == op) return entry.handler;
  }
  return nullptr;
}

Value extentOf(const TensorView* tv, int64_t dim) {
  const auto& axes = tv->logicalNoReductions();
  const int64_t axis = ops::normalizeAxis("size", tv, dim);
  return Value::fusionVal(axes[static_cast<size_t>(axis)]->extentForIteration());
}

Value shapeOf(const TensorView* tv) {
  ValueList extents;
  for (ir::IterDomain* id : tv->logicalNoReductions()) {
    extents.push_back(Value::fusionVal(id->extentForIteration()));
  }
  return Value::list(std::move(extents));
}

}  // namespace fuserlab::frontend
