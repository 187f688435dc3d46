// The differential tester's fusions: a seeded generator of random fusions in
// the form users paste (a FusionDefinition script in nvFuser's test style:
// the inputs first, fd.from_pytorch of each, fd.ops calls, add_output), and
// the smaller variants a failing one shrinks through. A fusion is kept as a
// list of nodes (inputs and ops, each knowing its dtype and sizes), so every
// variant is valid by construction and renders to a script again.
//
// The same seed gives the same script on every machine: the generator draws
// from its own splitmix64 stream, never from <random>'s distributions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fuserlab::difftest {

struct GeneratorOptions {
  int maxOps = 14;
  //! Elements per tensor, at most (inputs and every op's result).
  int64_t maxElements = int64_t{1} << 18;
  //! Beside a log-softmax of rank 2 or more, its sums over every axis but
  //! the softmax's, as outputs (the combined kernel's column sums along the
  //! innermost axis). Off for tests pinned to the fusions of before.
  bool columnSums = true;
  //! A sum over only the innermost axis of a float tensor of rank 2 or more
  //! becomes a grouped normalization (the last two axes merged by a reshape,
  //! the sum subtracted, the reshape back, a weight along the second-last
  //! axis: what refine_reshaped_reductions rewrites). Off for tests pinned to
  //! the fusions of before.
  bool groupedRows = true;
};

enum class Dtype { Float, Half, BFloat16, Double, Int, Int32, Bool };

//! One value of the fusion: an input (with its torch layout) or an op's
//! result. `call` is the fd.ops call with operands written as {0}, {1}...
struct Node {
  enum class Kind { Input, Op } kind = Kind::Op;
  Dtype dtype = Dtype::Float;
  std::vector<int64_t> sizes;
  std::vector<int> operands;  //!< indices of earlier nodes
  std::string call;           //!< e.g. "fd.ops.add({0}, {1})"
  std::string op;             //!< the op's name, for statistics
  std::string torch;          //!< for inputs: the torch expression
};

struct Output {
  int node = 0;
  int aliasInput = -1;  //!< a node index of an input, or -1
};

struct RandomFusion {
  uint64_t seed = 0;
  std::vector<Node> nodes;
  std::vector<Output> outputs;
  //! NAME=VALUE for compiler::CompileOptions::setFromAssignment.
  std::vector<std::string> options;
};

RandomFusion generateFusion(uint64_t seed, const GeneratorOptions& options = {});

//! The whole script: a comment with the seed and options, the imports, the
//! inputs, the definition, `fd.execute(inputs)`.
std::string renderScript(const RandomFusion& fusion);

//! Valid smaller variants, most aggressive first: the fusion cut after op k
//! with k's result its only output (every k), one output dropped, a compile
//! option back to its default. Unused nodes are removed from each.
std::vector<RandomFusion> shrinkCandidates(const RandomFusion& fusion);

}  // namespace fuserlab::difftest
