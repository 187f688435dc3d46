#include "core/frontend/statement_order.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

#include "core/ir/error.h"

namespace fuserlab::frontend {

using ir::Val;

// Kahn's order with the creation position as priority: a value a pass made
// later than its reader (a privatized upcast's copy, read by an expr created
// before it) otherwise came after its use in a segment's repro script.
std::vector<Statement> dependenciesFirst(std::vector<Statement> statements) {
  std::unordered_map<const Val*, size_t> definedBy;
  for (size_t i = 0; i < statements.size(); ++i) {
    const Statement& statement = statements[i];
    if (statement.input != nullptr) definedBy.emplace(statement.input, i);
    if (statement.expr != nullptr) {
      for (const Val* out : statement.expr->outputs()) definedBy.emplace(out, i);
    }
  }
  std::vector<std::vector<size_t>> readers(statements.size());
  std::vector<size_t> waiting(statements.size(), 0);
  for (size_t i = 0; i < statements.size(); ++i) {
    if (statements[i].expr == nullptr) continue;
    std::vector<size_t> producers;
    for (const Val* in : statements[i].expr->inputs()) {
      const auto it = definedBy.find(in);
      if (it == definedBy.end() || it->second == i) continue;
      if (std::find(producers.begin(), producers.end(), it->second) != producers.end()) continue;
      producers.push_back(it->second);
      readers[it->second].push_back(i);
    }
    waiting[i] = producers.size();
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < statements.size(); ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  // A moved statement takes the anchor of the latest statement it reads, so
  // that what it may name (writtenBefore) was written before it.
  std::vector<int64_t> anchorOf(statements.size());
  for (size_t i = 0; i < statements.size(); ++i) anchorOf[i] = statements[i].anchor;
  std::vector<Statement> ordered;
  ordered.reserve(statements.size());
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    ordered.push_back(statements[i]);
    ordered.back().anchor = anchorOf[i];
    for (size_t reader : readers[i]) {
      anchorOf[reader] = std::max(anchorOf[reader], anchorOf[i]);
      if (--waiting[reader] == 0) ready.push(reader);
    }
  }
  FL_ASSERT(ordered.size() == statements.size(), "writeScript: the fusion's exprs form a cycle");
  return ordered;
}

}  // namespace fuserlab::frontend
