// The script of a random fusion (fusion_generator.h, renderScript), in
// nvFuser's test style: the inputs first, fd.from_pytorch, one fd.ops call a
// node, add_output (alias_input= for in-place outputs), execute.
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "tests/difftest/fusion_generator.h"

namespace fuserlab::difftest {
namespace {

//! Replaces {k} in `call` with names[operands[k]].
std::string substitute(const std::string& call, const std::vector<int>& operands,
                       const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < call.size(); ++i) {
    if (call[i] == '{') {
      const size_t close = call.find('}', i);
      const size_t k = std::stoul(call.substr(i + 1, close - i - 1));
      out += names[static_cast<size_t>(operands[k])];
      i = close;
    } else {
      out += call[i];
    }
  }
  return out;
}

}  // namespace

std::string renderScript(const RandomFusion& fusion) {
  std::ostringstream out;
  out << "# A random fusion of FuserLab's differential tester, seed " << fusion.seed << ".\n";
  if (!fusion.options.empty()) {
    out << "# Compile options:";
    for (const std::string& o : fusion.options) out << " --set " << o;
    out << "\n";
  }
  out << "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n\ninputs = [\n";
  std::vector<std::string> names;
  int inputs = 0;
  for (const Node& n : fusion.nodes) {
    if (n.kind == Node::Kind::Input) out << "    " << n.torch << ",\n";
  }
  out << "]\n\nwith FusionDefinition() as fd:\n";
  for (size_t i = 0; i < fusion.nodes.size(); ++i) {
    const Node& n = fusion.nodes[i];
    names.push_back("T" + std::to_string(i));
    std::string call = n.call;
    if (n.kind == Node::Kind::Input) {
      call.replace(call.find('@'), 1, std::to_string(inputs++));
    } else {
      call = substitute(call, n.operands, names);
    }
    out << "    " << names.back() << " = " << call << "\n";
  }
  for (const Output& o : fusion.outputs) {
    out << "    fd.add_output(" << names[static_cast<size_t>(o.node)];
    if (o.aliasInput >= 0) out << ", alias_input=" << names[static_cast<size_t>(o.aliasInput)];
    out << ")\n";
  }
  out << "\nfd.execute(inputs)\n";
  return out.str();
}

}  // namespace fuserlab::difftest
