#include "tests/difftest/fusion_generator.h"

#include <algorithm>
#include <numeric>

#include "tests/difftest/random_stream.h"
#include "tests/difftest/script_text.h"

namespace fuserlab::difftest {
namespace {

using script_text::dataType;
using script_text::list;
using script_text::torchType;
using script_text::tuple;

bool isFloating(Dtype d) {
  return d == Dtype::Float || d == Dtype::Half || d == Dtype::BFloat16 || d == Dtype::Double;
}
bool isInteger(Dtype d) { return d == Dtype::Int || d == Dtype::Int32; }

int64_t numel(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

class Generator {
 public:
  Generator(uint64_t seed, const GeneratorOptions& options) : rng_(seed), options_(options) {
    fusion_.seed = seed;
  }

  RandomFusion run() {
    const int ops = 2 + static_cast<int>(rng_.below(std::max(1, options_.maxOps - 1)));
    if (rng_.chance(8)) {
      startWithoutInputs();
    } else {
      const int inputs = 1 + static_cast<int>(rng_.below(3));
      for (int i = 0; i < inputs; ++i) addInput(randomDtype(), randomSizes());
    }
    while (opCount_ < ops) step();
    chooseOutputs();
    chooseOptions();
    return fusion_;
  }

 private:
  // --- values ---------------------------------------------------------
  Dtype randomDtype() {
    static const std::vector<Dtype> kDtypes = {Dtype::Float,    Dtype::Float, Dtype::Float,
                                               Dtype::BFloat16, Dtype::Half,  Dtype::Double,
                                               Dtype::Int,      Dtype::Int32, Dtype::Bool};
    return rng_.pick(kDtypes);
  }

  std::vector<int64_t> randomSizes() {
    static const std::vector<int64_t> kExtents = {
        1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 33, 64, 127, 128, 255, 256, 513, 1023, 1024, 4097};
    const int rank = rng_.chance(5) ? 0 : 1 + static_cast<int>(rng_.below(4));
    std::vector<int64_t> sizes;
    for (int i = 0; i < rank; ++i) sizes.push_back(rng_.pick(kExtents));
    fit(sizes);
    return sizes;
  }

  void fit(std::vector<int64_t>& sizes) const {
    while (numel(sizes) > options_.maxElements) {
      auto largest = std::max_element(sizes.begin(), sizes.end());
      *largest = (*largest + 1) / 2;
    }
  }

  int add(Node node) {
    fusion_.nodes.push_back(std::move(node));
    if (fusion_.nodes.back().kind == Node::Kind::Op) ++opCount_;
    return static_cast<int>(fusion_.nodes.size()) - 1;
  }

  const Node& node(int i) const { return fusion_.nodes[static_cast<size_t>(i)]; }

  //! Values whose elements a GPU kernel computes exactly as the reference
  //! does (inputs, integer and boolean values, and what only moves or
  //! selects them): only these feed comparisons, rounding and casts to
  //! integers, where a last-bit difference would become a different value.
  bool exact(int i) const { return exact_[static_cast<size_t>(i)]; }

  int addNode(Node node, bool isExact) {
    const int i = add(std::move(node));
    exact_.resize(fusion_.nodes.size());
    exact_[static_cast<size_t>(i)] = isExact;
    return i;
  }

  std::string randomValues(Dtype d, const std::string& shape) {
    if (isFloating(d)) {
      return std::string(rng_.chance(70) ? "torch.randn(" : "torch.rand(") + shape +
             ", dtype=" + torchType(d) + ", device=\"cuda\")";
    }
    if (d == Dtype::Bool) {
      return "torch.randint(0, 2, " + shape + ", dtype=torch.bool, device=\"cuda\")";
    }
    return "torch.randint(-9, 10, " + shape + ", dtype=" + torchType(d) + ", device=\"cuda\")";
  }

  int addInput(Dtype d, std::vector<int64_t> sizes) {
    Node in;
    in.kind = Node::Kind::Input;
    in.dtype = d;
    in.sizes = sizes;
    in.op = "input";
    const int rank = static_cast<int>(sizes.size());
    const int layout = rank == 0 ? 0 : static_cast<int>(rng_.below(10));
    if (layout == 6 && rank >= 2) {
      // Permuted: a contiguous tensor of permuted sizes, viewed back.
      std::vector<int64_t> perm(static_cast<size_t>(rank));
      std::iota(perm.begin(), perm.end(), 0);
      for (int i = rank - 1; i > 0; --i)
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng_.below(i + 1))]);
      std::vector<int64_t> stored, inverse(static_cast<size_t>(rank));
      for (int i = 0; i < rank; ++i) {
        stored.push_back(sizes[static_cast<size_t>(perm[static_cast<size_t>(i)])]);
        inverse[static_cast<size_t>(perm[static_cast<size_t>(i)])] = i;
      }
      in.torch = randomValues(d, tuple(stored)) + ".permute" + tuple(inverse);
      in.op = "input_permuted";
    } else if (layout == 7 && numel(sizes) > 1) {
      // Expanded: stride 0 on one axis of extent > 1.
      std::vector<int64_t> base = sizes;
      int axis = static_cast<int>(rng_.below(rank));
      while (base[static_cast<size_t>(axis)] == 1) axis = (axis + 1) % rank;
      base[static_cast<size_t>(axis)] = 1;
      in.torch = randomValues(d, tuple(base)) + ".expand" + tuple(sizes);
      in.op = "input_expanded";
    } else if (layout == 8) {
      // A misaligned start: the last axis sliced from 1.
      std::vector<int64_t> base = sizes;
      base.back() += 1;
      std::string index = "[";
      for (int i = 0; i + 1 < rank; ++i) index += ":, ";
      in.torch = randomValues(d, tuple(base)) + index + "1:]";
      in.op = "input_misaligned";
    } else if (layout == 9) {
      // A step: every other element of the last axis.
      std::vector<int64_t> base = sizes;
      base.back() *= 2;
      std::string index = "[";
      for (int i = 0; i + 1 < rank; ++i) index += ":, ";
      in.torch = randomValues(d, tuple(base)) + index + "::2]";
      in.op = "input_strided";
    } else {
      in.torch = randomValues(d, tuple(sizes));
    }
    in.call = "fd.from_pytorch(inputs[@])";
    return addNode(std::move(in), true);
  }

  void startWithoutInputs() {
    std::vector<int64_t> sizes = randomSizes();
    if (sizes.empty()) sizes = {33};
    Node full;
    full.dtype = Dtype::Float;
    full.sizes = sizes;
    full.op = "full";
    full.call = "fd.ops.full(shape=" + list(sizes) +
                ", fill_value=" + (rng_.chance(50) ? "1.5" : "-0.25") + ", dtype=DataType.Float)";
    addNode(std::move(full), true);
    Node iota;
    iota.dtype = Dtype::Int;
    iota.sizes = {sizes.back()};
    iota.op = "iota";
    iota.call = "fd.ops.iota(" + std::to_string(sizes.back()) + ", 0, 1, dtype=DataType.Int)";
    addNode(std::move(iota), true);
  }

  int recent() {
    const int n = static_cast<int>(fusion_.nodes.size());
    if (rng_.chance(60)) return n - 1;
    return static_cast<int>(rng_.below(n));
  }

  int op(Dtype d, std::vector<int64_t> sizes, std::vector<int> operands, std::string name,
         std::string call, bool isExact) {
    Node n;
    n.dtype = d;
    n.sizes = std::move(sizes);
    n.operands = std::move(operands);
    n.op = std::move(name);
    n.call = std::move(call);
    return addNode(std::move(n), isExact);
  }

  //! `x` as Float when it is half, bfloat16 (where the kernel's float
  //! intermediates and the reference's rounding after each op differ more
  //! than the tolerance after a few ops) or not floating.
  int computable(int x) {
    const Dtype d = node(x).dtype;
    if (d == Dtype::Float || d == Dtype::Double) return x;
    return op(Dtype::Float, node(x).sizes, {x}, "cast", "fd.ops.cast({0}, dtype=DataType.Float)",
              exact(x));
  }

  int castTo(int x, Dtype d) {
    if (node(x).dtype == d) return x;
    return op(
        d, node(x).sizes, {x}, "cast", std::string("fd.ops.cast({0}, dtype=") + dataType(d) + ")",
        exact(x) && (isFloating(d) ? node(x).dtype != Dtype::Double || d == Dtype::Double : true));
  }

  //! Another value of x's sizes (and dtype, cast if needed): an earlier
  //! one, a broadcast of a smaller one, or a new input.
  int partnerFor(int x, Dtype d) {
    const std::vector<int64_t> sizes = node(x).sizes;
    std::vector<int> same;
    for (int i = 0; i < static_cast<int>(fusion_.nodes.size()); ++i) {
      if (i != x && node(i).sizes == sizes) same.push_back(i);
    }
    const int way = static_cast<int>(rng_.below(10));
    if (way < 4 && !same.empty()) return castTo(rng_.pick(same), d);
    if (way < 7 && !sizes.empty()) {
      // A new input of fewer axes, broadcast to x's sizes.
      std::vector<int64_t> dims;
      std::vector<int64_t> small;
      for (size_t a = 0; a < sizes.size(); ++a) {
        if (rng_.chance(50)) {
          dims.push_back(static_cast<int64_t>(a));
          small.push_back(sizes[a]);
        }
      }
      const int in = addInput(d, small);
      return op(d, sizes, {in}, "broadcast_in_dim",
                "fd.ops.broadcast_in_dim({0}, shape=" + list(sizes) +
                    ", broadcast_dims=" + list(dims) + ")",
                true);
    }
    return addInput(d, sizes);
  }

  std::string literal(Dtype d) {
    if (isFloating(d)) return rng_.pick(std::vector<std::string>{"0.5", "-1.25", "3.0", "0.1"});
    if (d == Dtype::Bool) return "True";
    return rng_.pick(std::vector<std::string>{"2", "-3", "7"});
  }

  // --- ops --------------------------------------------------------------
  void step() {
    const int kind = static_cast<int>(rng_.below(100));
    const int x = recent();
    if (kind < 18) return unary(x);
    if (kind < 38) return binary(x);
    if (kind < 44) return compare(x);
    if (kind < 49) return where(x);
    if (kind < 55) return cast(x);
    if (kind < 67) return reduce(x);
    if (kind < 71) return broadcast(x);
    if (kind < 74) return expandOrSqueeze(x);
    if (kind < 79) return reshape(x);
    if (kind < 82) return permute(x);
    if (kind < 87) return slice(x);
    if (kind < 90) return pad(x);
    if (kind < 94) return cat(x);
    return gather(x);
  }

  void unary(int x) {
    if (node(x).dtype == Dtype::Bool) {
      op(Dtype::Bool, node(x).sizes, {x}, "logical_not", "fd.ops.logical_not({0})", true);
      return;
    }
    if (isInteger(node(x).dtype) && rng_.chance(50)) {
      const char* name = rng_.chance(50) ? "neg" : (rng_.chance(50) ? "abs" : "bitwise_not");
      op(node(x).dtype, node(x).sizes, {x}, name, std::string("fd.ops.") + name + "({0})", true);
      return;
    }
    if (rng_.chance(30)) {
      // Exact on any dtype: neg, abs.
      const char* name = rng_.chance(50) ? "neg" : "abs";
      op(node(x).dtype, node(x).sizes, {x}, name, std::string("fd.ops.") + name + "({0})",
         exact(x));
      return;
    }
    const int v = computable(x);
    static const std::vector<std::pair<const char*, const char*>> kUnary = {
        {"tanh", "fd.ops.tanh({0})"},
        {"sigmoid", "fd.ops.sigmoid({0})"},
        // sin and cos take a bounded argument: on a large one (a Float sum of many
        // values) a rounding difference in the operand that is within the
        // operand's tolerance becomes a different sine.
        {"sin", "fd.ops.sin(fd.ops.tanh({0}))"},
        {"cos", "fd.ops.cos(fd.ops.tanh({0}))"},
        {"relu", "fd.ops.relu({0})"},
        {"exp", "fd.ops.exp(fd.ops.tanh({0}))"},
        {"log", "fd.ops.log(fd.ops.add(fd.ops.abs({0}), 1.0))"},
        {"sqrt", "fd.ops.sqrt(fd.ops.abs({0}))"},
        {"rsqrt", "fd.ops.rsqrt(fd.ops.add(fd.ops.abs({0}), 0.5))"},
        {"reciprocal", "fd.ops.reciprocal(fd.ops.add(fd.ops.abs({0}), 1.0))"},
        {"erf", "fd.ops.erf({0})"},
        {"silu", "fd.ops.mul({0}, fd.ops.sigmoid({0}))"},
    };
    const auto& [name, call] = rng_.pick(kUnary);
    op(node(v).dtype, node(v).sizes, {v}, name, call, false);
  }

  void binary(int x) {
    Dtype d = node(x).dtype;
    if (d == Dtype::Bool) {
      const int y = partnerFor(x, Dtype::Bool);
      const char* name =
          rng_.pick(std::vector<const char*>{"logical_and", "logical_or", "bitwise_xor"});
      op(Dtype::Bool, node(x).sizes, {x, y}, name, std::string("fd.ops.") + name + "({0}, {1})",
         true);
      return;
    }
    const bool integer = isInteger(d);
    int a = integer ? x : computable(x);
    d = node(a).dtype;
    std::vector<const char*> names = {"add", "sub", "mul", "maximum", "minimum"};
    if (!integer) names.push_back("div");
    if (integer) {
      names.push_back("bitwise_and");
      names.push_back("bitwise_or");
    }
    const char* name = rng_.pick(names);
    const bool isExact =
        integer || std::string(name) == "maximum" || std::string(name) == "minimum";
    const int form = static_cast<int>(rng_.below(10));
    if (form < 3 && std::string(name).rfind("bitwise", 0) != 0) {
      // A Python number on either side.
      const std::string lit = literal(d);
      const std::string call = rng_.chance(50)
                                   ? std::string("fd.ops.") + name + "({0}, " + lit + ")"
                                   : std::string("fd.ops.") + name + "(" + lit + ", {0})";
      if (std::string(name) == "div") {
        op(d, node(a).sizes, {a}, name, std::string("fd.ops.div({0}, ") + lit + ")", false);
      } else {
        op(d, node(a).sizes, {a}, name, call, isExact && exact(a));
      }
      return;
    }
    int b;
    if (form < 5 && !node(a).sizes.empty()) {
      // A 0-dim operand (an input, or a full reduction of one).
      const int s = addInput(d, {});
      b = s;
    } else {
      b = partnerFor(a, d);
    }
    if (std::string(name) == "div") {
      op(d, node(a).sizes, {a, b}, name, "fd.ops.div({0}, fd.ops.add(fd.ops.abs({1}), 1.0))",
         false);
      return;
    }
    op(d, node(a).sizes, {a, b}, name, std::string("fd.ops.") + name + "({0}, {1})",
       isExact && exact(a) && exact(b));
  }

  int exactOperand(int x) {
    if (exact(x)) return x;
    // An input of the same sizes instead.
    return addInput(rng_.chance(50) ? Dtype::Float : node(x).dtype, node(x).sizes);
  }

  void compare(int x) {
    int a = exactOperand(x);
    if (node(a).dtype == Dtype::Bool) a = castTo(a, Dtype::Int32);
    const char* name = rng_.pick(std::vector<const char*>{"eq", "ne", "lt", "le", "gt", "ge"});
    if (rng_.chance(50)) {
      op(Dtype::Bool, node(a).sizes, {a}, name,
         std::string("fd.ops.") + name + "({0}, " + (isFloating(node(a).dtype) ? "0.0" : "1") + ")",
         true);
      return;
    }
    int b = partnerFor(a, node(a).dtype);
    if (!exact(b)) b = addInput(node(a).dtype, node(a).sizes);
    op(Dtype::Bool, node(a).sizes, {a, b}, name, std::string("fd.ops.") + name + "({0}, {1})",
       true);
  }

  void where(int x) {
    int a = node(x).dtype == Dtype::Bool ? castTo(x, Dtype::Float) : x;
    const int cond = exactOperand(a);
    const int b = partnerFor(a, node(a).dtype);
    const std::string zero =
        isFloating(node(cond).dtype) ? "0.0" : (node(cond).dtype == Dtype::Bool ? "False" : "0");
    const std::string test =
        node(cond).dtype == Dtype::Bool ? "{0}" : "fd.ops.gt({0}, " + zero + ")";
    op(node(a).dtype, node(a).sizes, {cond, a, b}, "where", "fd.ops.where(" + test + ", {1}, {2})",
       exact(a) && exact(b));
  }

  void cast(int x) {
    Dtype d = randomDtype();
    if ((isInteger(d) || d == Dtype::Bool) && !exact(x)) d = Dtype::Half;
    if (node(x).dtype == Dtype::Double && isFloating(d) && d != Dtype::Double && !exact(x))
      d = Dtype::Float;
    if (d == node(x).dtype) d = d == Dtype::Float ? Dtype::BFloat16 : Dtype::Float;
    castTo(x, d);
  }

  void reduce(int x) {
    const std::vector<int64_t> sizes = node(x).sizes;
    if (sizes.empty()) return unary(x);
    if (node(x).dtype != Dtype::Bool && rng_.chance(12)) return logSoftmax(x);
    int a = x;
    const Dtype d = node(x).dtype;
    std::vector<const char*> names = {"max", "min"};
    if (d != Dtype::Bool) names.push_back("sum");
    if (d == Dtype::Bool) a = castTo(x, Dtype::Int32);
    const char* name = rng_.pick(names);
    if (std::string(name) == "sum" && !isInteger(node(a).dtype)) a = computable(a);
    std::vector<int64_t> dims;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (rng_.chance(45)) dims.push_back(static_cast<int64_t>(i));
    }
    if (dims.empty()) dims.push_back(rng_.below(static_cast<int64_t>(sizes.size())));
    const bool keepdim = rng_.chance(35);
    std::vector<int64_t> out;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const bool reduced =
          std::find(dims.begin(), dims.end(), static_cast<int64_t>(i)) != dims.end();
      if (!reduced) out.push_back(sizes[i]);
      else if (keepdim) out.push_back(1);
    }
    // Decided without a draw, so fusions without such a sum stay as they were.
    if (options_.groupedRows && std::string(name) == "sum" && !isInteger(node(a).dtype) &&
        dims == std::vector<int64_t>{static_cast<int64_t>(sizes.size()) - 1} && sizes.size() >= 2 &&
        sizes[sizes.size() - 2] >= 2) {
      return groupedRows(a);
    }
    const bool isExact = std::string(name) != "sum" || isInteger(node(a).dtype);
    // A sum of int32 is int64, as in torch and nvFuser (seed 659873 had
    // aliased such a sum's int64 update into its int32 input).
    const Dtype result =
        std::string(name) == "sum" && node(a).dtype == Dtype::Int32 ? Dtype::Int : node(a).dtype;
    op(result, out, {a}, name,
       std::string("fd.ops.") + name + "({0}, dims=" + list(dims) +
           ", keepdim=" + (keepdim ? "True" : "False") + ")",
       isExact && exact(a));
  }

  // log_softmax along one axis as Thunder writes it (x - max - log(sum(exp(x
  // - max)))), half the time picked at random indices along that axis as
  // cross-entropy does: what online_logsumexp and gather_through_pointwise
  // rewrite.
  void logSoftmax(int x) {
    const std::vector<int64_t> sizes = node(x).sizes;
    // x - max(x) cancels: a rounding difference in an inexact x (a sum of
    // 1024 values near 500, seed 493389) becomes a relative error of the
    // log-probabilities past any fair tolerance. Inexact values are
    // replaced by an input of their sizes.
    const int a = exact(x) ? computable(x) : addInput(Dtype::Float, sizes);
    const int64_t dim = rng_.below(static_cast<int64_t>(sizes.size()));
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
      if (i != dim) kept.push_back(i);
    }
    const std::string back = "shape=" + list(sizes) + ", broadcast_dims=" + list(kept) + ")";
    const std::string dims = ", dims=[" + std::to_string(dim) + "], keepdim=False)";
    const int shifted = op(
        node(a).dtype, sizes, {a}, "sub_max",
        "fd.ops.sub({0}, fd.ops.broadcast_in_dim(fd.ops.max({0}" + dims + ", " + back + ")", false);
    const int y =
        op(node(a).dtype, sizes, {shifted}, "log_softmax",
           "fd.ops.sub({0}, fd.ops.broadcast_in_dim(fd.ops.log(fd.ops.sum(fd.ops.exp({0})" + dims +
               "), " + back + ")",
           false);
    // Beside the row reductions, the sums of the log-probabilities over
    // every other axis: along the innermost axis the combined kernel
    // computes them in the same pass as the rows (a norm backward's dw beside
    // dx), along another they go in a kernel of their own. Decided without a
    // draw, so the other fusions' random choices stay as they were.
    if (options_.columnSums && sizes.size() >= 2) {
      std::vector<int64_t> columns = {sizes[static_cast<size_t>(dim)]};
      op(node(y).dtype, columns, {y}, "column_sum",
         "fd.ops.sum({0}, dims=" + list(kept) + ", keepdim=False)", false);
    }
    if (rng_.chance(50)) {
      std::vector<int64_t> out = sizes;
      out[static_cast<size_t>(dim)] = rng_.chance(70) ? 1 : 3;
      const int in = indexInput(out, sizes[static_cast<size_t>(dim)]);
      op(node(y).dtype, out, {y, in}, "take_along_axis",
         "fd.ops.take_along_axis({0}, {1}, dim=" + std::to_string(dim) + ")", false);
    }
  }

  // GroupNorm's shape of fusion on `a` [..., B, C]: rows merged to [..., B * C]
  // by a reshape, centred by their sum, the reshape back, scaled by a weight
  // [B] broadcast along the rest.
  void groupedRows(int a) {
    const std::vector<int64_t> sizes = node(a).sizes;
    const size_t rank = sizes.size();
    std::vector<int64_t> merged(sizes.begin(), sizes.end() - 2);
    merged.push_back(sizes[rank - 2] * sizes[rank - 1]);
    const int rows = op(node(a).dtype, merged, {a}, "reshape",
                        "fd.ops.reshape({0}, new_shape=" + list(merged) + ")", exact(a));
    std::vector<int64_t> kept = merged;
    kept.back() = 1;
    const int sum =
        op(node(a).dtype, kept, {rows}, "sum",
           "fd.ops.sum({0}, dims=[" + std::to_string(rank - 2) + "], keepdim=True)", false);
    const int centred =
        op(node(a).dtype, merged, {rows, sum}, "sub", "fd.ops.sub({0}, {1})", false);
    const int back = op(node(a).dtype, sizes, {centred}, "reshape",
                        "fd.ops.reshape({0}, new_shape=" + list(sizes) + ")", false);
    Node weight;
    weight.kind = Node::Kind::Input;
    weight.dtype = Dtype::Float;
    weight.call = "fd.from_pytorch(inputs[@])";
    weight.op = "input_weight";
    weight.sizes = {sizes[rank - 2]};
    weight.torch = randomValues(Dtype::Float, tuple(weight.sizes));
    const int w = addNode(std::move(weight), true);
    op(node(a).dtype, sizes, {back, w}, "grouped_rows",
       "fd.ops.mul({0}, fd.ops.broadcast_in_dim({1}, shape=" + list(sizes) + ", broadcast_dims=[" +
           std::to_string(rank - 2) + "]))",
       false);
  }

  //! A new int64 input of `sizes` holding indices in [0, extent).
  int indexInput(const std::vector<int64_t>& sizes, int64_t extent) {
    Node index;
    index.kind = Node::Kind::Input;
    index.dtype = Dtype::Int;
    index.call = "fd.from_pytorch(inputs[@])";
    index.op = "input_index";
    index.sizes = sizes;
    index.torch = "torch.randint(0, " + std::to_string(extent) + ", " + tuple(index.sizes) +
                  ", dtype=torch.int64, device=\"cuda\")";
    return addNode(std::move(index), true);
  }

  void broadcast(int x) {
    std::vector<int64_t> sizes = node(x).sizes;
    if (sizes.size() >= 4) return permute(x);
    std::vector<int64_t> out;
    std::vector<int64_t> dims;
    const int extra =
        1 +
        static_cast<int>(rng_.below(std::min<int64_t>(2, 4 - static_cast<int64_t>(sizes.size()))));
    const int rank = static_cast<int>(sizes.size()) + extra;
    std::vector<bool> isNew(static_cast<size_t>(rank), false);
    for (int k = 0; k < extra; ++k) {
      int p = static_cast<int>(rng_.below(rank));
      while (isNew[static_cast<size_t>(p)]) p = (p + 1) % rank;
      isNew[static_cast<size_t>(p)] = true;
    }
    size_t next = 0;
    for (int i = 0; i < rank; ++i) {
      if (isNew[static_cast<size_t>(i)]) {
        out.push_back(rng_.chance(40) ? 1 : rng_.pick(std::vector<int64_t>{2, 3, 8, 33, 128}));
      } else {
        dims.push_back(i);
        out.push_back(sizes[next++]);
      }
    }
    std::vector<int64_t> fitted = out;
    fit(fitted);
    for (size_t i = 0; i < out.size(); ++i) {
      if (fitted[i] != out[i]) out[i] = isNew[i] ? 1 : out[i];
    }
    if (numel(out) > options_.maxElements) return permute(x);
    op(node(x).dtype, out, {x}, "broadcast_in_dim",
       "fd.ops.broadcast_in_dim({0}, shape=" + list(out) + ", broadcast_dims=" + list(dims) + ")",
       exact(x));
  }

  void expandOrSqueeze(int x) {
    const std::vector<int64_t> sizes = node(x).sizes;
    std::vector<int64_t> ones;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == 1) ones.push_back(static_cast<int64_t>(i));
    }
    if (ones.empty()) return broadcast(x);
    if (rng_.chance(50)) {
      std::vector<int64_t> out = sizes;
      for (int64_t i : ones)
        out[static_cast<size_t>(i)] = rng_.pick(std::vector<int64_t>{2, 5, 16, 64});
      if (numel(out) > options_.maxElements) return;
      op(node(x).dtype, out, {x}, "expand", "fd.ops.expand({0}, shape=" + list(out) + ")",
         exact(x));
      return;
    }
    std::vector<int64_t> out;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] != 1) out.push_back(sizes[i]);
    }
    op(node(x).dtype, out, {x}, "squeeze", "fd.ops.squeeze({0}, dims=" + list(ones) + ")",
       exact(x));
  }

  void reshape(int x) {
    std::vector<int64_t> sizes = node(x).sizes;
    if (sizes.empty()) return unary(x);
    std::vector<int64_t> out;
    const int form = static_cast<int>(rng_.below(3));
    if (form == 0 && sizes.size() >= 2) {
      const size_t a = static_cast<size_t>(rng_.below(static_cast<int64_t>(sizes.size()) - 1));
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (i == a) {
          out.push_back(sizes[i] * sizes[i + 1]);
          ++i;
        } else {
          out.push_back(sizes[i]);
        }
      }
    } else if (form == 1 && sizes.size() < 4) {
      const size_t a = static_cast<size_t>(rng_.below(static_cast<int64_t>(sizes.size())));
      std::vector<int64_t> divisors;
      for (int64_t f = 2; f < sizes[a]; ++f) {
        if (sizes[a] % f == 0) divisors.push_back(f);
      }
      if (divisors.empty()) return permute(x);
      const int64_t f = rng_.pick(divisors);
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (i == a) {
          out.push_back(f);
          out.push_back(sizes[i] / f);
        } else {
          out.push_back(sizes[i]);
        }
      }
    } else {
      out = {numel(sizes)};
    }
    op(node(x).dtype, out, {x}, "reshape", "fd.ops.reshape({0}, new_shape=" + list(out) + ")",
       exact(x));
  }

  void permute(int x) {
    const std::vector<int64_t> sizes = node(x).sizes;
    if (sizes.size() < 2) return unary(x);
    std::vector<int64_t> perm(sizes.size());
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = perm.size() - 1; i > 0; --i)
      std::swap(perm[i], perm[static_cast<size_t>(rng_.below(static_cast<int64_t>(i) + 1))]);
    std::vector<int64_t> out;
    for (int64_t p : perm) out.push_back(sizes[static_cast<size_t>(p)]);
    op(node(x).dtype, out, {x}, "permute", "fd.ops.permute({0}, dims=" + list(perm) + ")",
       exact(x));
  }

  void slice(int x) {
    const std::vector<int64_t> sizes = node(x).sizes;
    if (sizes.empty()) return unary(x);
    std::vector<int64_t> starts, ends, steps, out;
    for (int64_t s : sizes) {
      int64_t start = 0, end = s, step = 1;
      if (s > 1 && rng_.chance(60)) {
        start = rng_.below(s / 2 + 1);
        end = start + 1 + rng_.below(s - start);
        step = rng_.chance(25) ? 2 + rng_.below(2) : 1;
      }
      starts.push_back(start);
      ends.push_back(end);
      steps.push_back(step);
      out.push_back((end - start + step - 1) / step);
    }
    const bool strided = std::any_of(steps.begin(), steps.end(), [](int64_t v) { return v != 1; });
    op(node(x).dtype, out, {x}, strided ? "slice_strided" : "slice",
       "fd.ops.slice({0}, start_indices=" + list(starts) + ", end_indices=" + list(ends) +
           (strided ? ", strides=" + list(steps) : std::string()) + ")",
       exact(x));
  }

  void pad(int x) {
    std::vector<int64_t> sizes = node(x).sizes;
    if (sizes.empty() || node(x).dtype == Dtype::Bool) return unary(x);
    std::vector<int64_t> widths;
    const size_t axes = std::min<size_t>(sizes.size(), 1 + static_cast<size_t>(rng_.below(2)));
    for (size_t k = 0; k < axes; ++k) {
      const int64_t lo = rng_.below(4), hi = rng_.below(4);
      widths.push_back(lo);
      widths.push_back(hi);
      sizes[sizes.size() - 1 - k] += lo + hi;
    }
    if (numel(sizes) > options_.maxElements) return;
    const std::string value = isFloating(node(x).dtype) ? (rng_.chance(50) ? "0.0" : "1.5") : "0";
    op(node(x).dtype, sizes, {x}, "pad", "fd.ops.pad({0}, " + list(widths) + ", " + value + ")",
       exact(x));
  }

  void cat(int x) {
    std::vector<int64_t> sizes = node(x).sizes;
    if (sizes.empty()) return unary(x);
    const size_t dim = static_cast<size_t>(rng_.below(static_cast<int64_t>(sizes.size())));
    std::vector<int64_t> other = sizes;
    other[dim] = rng_.pick(std::vector<int64_t>{1, 3, 8, 17});
    std::vector<int64_t> out = sizes;
    out[dim] += other[dim];
    if (numel(out) > options_.maxElements) return;
    const int y = addInput(node(x).dtype, other);
    op(node(x).dtype, out, {x, y}, "cat", "fd.ops.cat([{0}, {1}], dim=" + std::to_string(dim) + ")",
       exact(x));
  }

  void gather(int x) {
    const std::vector<int64_t> sizes = node(x).sizes;
    if (sizes.empty()) return unary(x);
    const size_t dim = static_cast<size_t>(rng_.below(static_cast<int64_t>(sizes.size())));
    const int64_t k = rng_.pick(std::vector<int64_t>{1, 2, 5, 33});
    const bool select = rng_.chance(35);
    std::vector<int64_t> out = sizes;
    out[dim] = k;
    const int in = indexInput(select ? std::vector<int64_t>{k} : out, sizes[dim]);
    const char* name = select ? "index_select" : (rng_.chance(50) ? "take_along_axis" : "gather");
    op(node(x).dtype, out, {x, in}, name,
       std::string("fd.ops.") + name + "({0}, {1}, dim=" + std::to_string(dim) + ")", exact(x));
  }

  // --- outputs and options ---------------------------------------------
  void chooseOutputs() {
    const int n = static_cast<int>(fusion_.nodes.size());
    fusion_.outputs.push_back({n - 1, -1});
    const int more = static_cast<int>(rng_.below(3));
    for (int k = 0; k < more; ++k) {
      const int i = static_cast<int>(rng_.below(n));
      if (node(i).kind != Node::Kind::Op) continue;
      bool seen = false;
      for (const Output& o : fusion_.outputs) seen = seen || o.node == i;
      if (!seen) fusion_.outputs.push_back({i, -1});
    }
    // The column sums beside log-softmax rows (logSoftmax) are outputs, or
    // nothing would keep them; no draw, so the other choices stay.
    for (int i = 0; i < n; ++i) {
      if (node(i).op != "column_sum") continue;
      bool seen = false;
      for (const Output& o : fusion_.outputs) seen = seen || o.node == i;
      if (!seen) fusion_.outputs.push_back({i, -1});
    }
    if (rng_.chance(15)) {
      // An in-place update of a contiguous input: out = in * 0.5 + y.
      std::vector<int> candidates;
      for (int i = 0; i < n; ++i) {
        if (node(i).kind == Node::Kind::Input && node(i).op == "input" &&
            node(i).dtype != Dtype::Bool && !node(i).sizes.empty()) {
          candidates.push_back(i);
        }
      }
      if (candidates.empty()) return;
      const int in = rng_.pick(candidates);
      const int y = partnerFor(in, node(in).dtype);
      const std::string lit = isFloating(node(in).dtype) ? "0.5" : "2";
      const int updated = op(node(in).dtype, node(in).sizes, {in, y}, "in_place_update",
                             "fd.ops.add(fd.ops.mul({0}, " + lit + "), {1})", false);
      fusion_.outputs.push_back({updated, in});
    }
  }

  void chooseOptions() {
    if (rng_.chance(25)) fusion_.options.push_back("upcast=forward");
    if (rng_.chance(25)) {
      fusion_.options.push_back(rng_.chance(50) ? "bookend=none" : "bookend=inputs_and_outputs");
    }
    if (rng_.chance(20)) fusion_.options.push_back("dependent_launch=off");
    if (rng_.chance(20)) fusion_.options.push_back("graph_launch=off");
    // The last draw: the fusion and the options above are what they were.
    // The rewrite is on by default: a quarter of the fusions without it.
    if (rng_.chance(25)) fusion_.options.push_back("refine_reshaped_reductions=off");
  }

  Rng rng_;
  GeneratorOptions options_;
  RandomFusion fusion_;
  std::vector<bool> exact_;
  int opCount_ = 0;
};

}  // namespace

RandomFusion generateFusion(uint64_t seed, const GeneratorOptions& options) {
  return Generator(seed, options).run();
}

}  // namespace fuserlab::difftest
