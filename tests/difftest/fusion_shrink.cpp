// Shrinking a failing random fusion (fusion_generator.h, shrinkCandidates):
// the smaller fusions one step from it, each with the nodes no output needs
// removed. Apart from the generator, which only makes fusions.
#include <cstddef>
#include <utility>
#include <vector>

#include "tests/difftest/fusion_generator.h"

namespace fuserlab::difftest {
namespace {

//! Removes nodes no output needs (inputs included), renumbering operands.
RandomFusion withoutDeadNodes(RandomFusion f) {
  std::vector<bool> live(f.nodes.size(), false);
  for (const Output& o : f.outputs) {
    live[static_cast<size_t>(o.node)] = true;
    if (o.aliasInput >= 0) live[static_cast<size_t>(o.aliasInput)] = true;
  }
  for (size_t i = f.nodes.size(); i-- > 0;) {
    if (!live[i]) continue;
    for (int operand : f.nodes[i].operands) live[static_cast<size_t>(operand)] = true;
  }
  std::vector<int> renumber(f.nodes.size(), -1);
  std::vector<Node> kept;
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    if (!live[i]) continue;
    renumber[i] = static_cast<int>(kept.size());
    kept.push_back(f.nodes[i]);
    for (int& operand : kept.back().operands) operand = renumber[static_cast<size_t>(operand)];
  }
  for (Output& o : f.outputs) {
    o.node = renumber[static_cast<size_t>(o.node)];
    if (o.aliasInput >= 0) o.aliasInput = renumber[static_cast<size_t>(o.aliasInput)];
  }
  f.nodes = std::move(kept);
  return f;
}

}  // namespace

std::vector<RandomFusion> shrinkCandidates(const RandomFusion& fusion) {
  std::vector<RandomFusion> candidates;
  auto differs = [&](const RandomFusion& c) {
    return c.nodes.size() != fusion.nodes.size() || c.outputs.size() != fusion.outputs.size() ||
           c.options != fusion.options;
  };
  // The fusion cut after op k, k's result its only output.
  for (size_t k = 0; k < fusion.nodes.size(); ++k) {
    if (fusion.nodes[k].kind != Node::Kind::Op) continue;
    RandomFusion c = fusion;
    c.nodes.resize(k + 1);
    c.outputs = {{static_cast<int>(k), -1}};
    c = withoutDeadNodes(std::move(c));
    if (differs(c)) candidates.push_back(std::move(c));
  }
  // One output dropped.
  if (fusion.outputs.size() > 1) {
    for (size_t j = 0; j < fusion.outputs.size(); ++j) {
      RandomFusion c = fusion;
      c.outputs.erase(c.outputs.begin() + static_cast<std::ptrdiff_t>(j));
      candidates.push_back(withoutDeadNodes(std::move(c)));
    }
  }
  // An op whose first operand has its dtype and sizes, bypassed.
  for (size_t k = 0; k < fusion.nodes.size(); ++k) {
    const Node& n = fusion.nodes[k];
    if (n.kind != Node::Kind::Op || n.operands.empty()) continue;
    const Node& first = fusion.nodes[static_cast<size_t>(n.operands[0])];
    if (first.dtype != n.dtype || first.sizes != n.sizes) continue;
    RandomFusion c = fusion;
    const int replacement = n.operands[0];
    for (Node& m : c.nodes) {
      for (int& operand : m.operands) {
        if (operand == static_cast<int>(k)) operand = replacement;
      }
    }
    bool ok = true;
    for (Output& o : c.outputs) {
      if (o.node == static_cast<int>(k)) {
        if (fusion.nodes[static_cast<size_t>(replacement)].kind != Node::Kind::Op) ok = false;
        o.node = replacement;
      }
    }
    for (size_t a = 0; a < c.outputs.size() && ok; ++a) {
      for (size_t b = a + 1; b < c.outputs.size(); ++b)
        ok = ok && c.outputs[a].node != c.outputs[b].node;
    }
    if (ok) candidates.push_back(withoutDeadNodes(std::move(c)));
  }
  // A compile option back to its default.
  for (size_t j = 0; j < fusion.options.size(); ++j) {
    RandomFusion c = fusion;
    c.options.erase(c.options.begin() + static_cast<std::ptrdiff_t>(j));
    candidates.push_back(std::move(c));
  }
  return candidates;
}

}  // namespace fuserlab::difftest
