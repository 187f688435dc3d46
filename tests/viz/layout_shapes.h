// Script shapes whose graphs are hard to lay out, shared by the layout tests
// and bench_viz_layout (issue 46: the benchmark had measured only the easy,
// local-edge shape).
#pragma once

#include <sstream>
#include <string>

namespace fuserlab::viz::testing {

// A chain of `ops` ops where every other one adds the shared T1 (a bias).
inline std::string sharedInputChainScript(int ops) {
  std::ostringstream s;
  s << "import torch\nfrom nvfuser_direct import FusionDefinition, DataType\n"
    << "inputs = [torch.randn((64, 64), device='cuda'), torch.randn((64, 64), device='cuda')]\n"
    << "with FusionDefinition() as fd:\n"
    << "    T0 = fd.from_pytorch(inputs[0])\n    T1 = fd.from_pytorch(inputs[1])\n";
  const char* unary[] = {"exp", "tanh", "neg", "abs", "sigmoid"};
  for (int i = 0; i < ops; ++i) {
    const int prev = i == 0 ? 0 : i + 1;
    s << "    T" << i + 2 << " = fd.ops.";
    if (i % 2 == 0) {
      s << "add(T" << prev << ", T1)\n";
    } else {
      s << unary[i % 5] << "(T" << prev << ")\n";
    }
  }
  s << "    fd.add_output(T" << ops + 1 << ")\n";
  return s.str();
}

}  // namespace fuserlab::viz::testing
