#include "core/segmenter/sibling_reductions.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace fuserlab::segmenter {
namespace {

using ir::Expr;
using ir::Val;

// Each try extracts and schedules a group; past this many the remaining
// pairs stay apart (a fusion of hundreds of reductions of one input).
constexpr int kMaxTries = 256;

bool reduces(const CandidateGroup& group) {
  return std::any_of(group.exprs.begin(), group.exprs.end(), [](const Expr* e) {
    return e->type() == ir::ExprType::Reduction || e->type() == ir::ExprType::Welford;
  });
}

// Which groups each group reads a value from (its producers).
std::vector<std::vector<size_t>> producersOf(const CompleteFusionIndex& index,
                                             const std::vector<CandidateGroup>& groups) {
  std::unordered_map<const Val*, size_t> producer;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const Expr* expr : groups[g].exprs) {
      if (index.isReplicated(expr)) continue;
      for (const Val* out : expr->outputs()) producer.emplace(out, g);
    }
  }
  std::vector<std::vector<size_t>> producers(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const Expr* expr : groups[g].exprs) {
      for (const Val* in : expr->inputs()) {
        auto it = producer.find(in);
        if (it == producer.end() || it->second == g) continue;
        auto& list = producers[g];
        if (std::find(list.begin(), list.end(), it->second) == list.end()) {
          list.push_back(it->second);
        }
      }
    }
  }
  return producers;
}

// Whether `from` reads, through any chain of groups, a value of `target`.
bool dependsOn(const std::vector<std::vector<size_t>>& producers, size_t from, size_t target) {
  std::vector<size_t> stack{from};
  std::vector<bool> seen(producers.size(), false);
  while (!stack.empty()) {
    const size_t g = stack.back();
    stack.pop_back();
    for (size_t p : producers[g]) {
      if (p == target) return true;
      if (!seen[p]) {
        seen[p] = true;
        stack.push_back(p);
      }
    }
  }
  return false;
}

// The first fusion input both groups read, or null.
const Val* sharedInput(const CandidateGroup& a, const CandidateGroup& b) {
  std::unordered_set<const Val*> read;
  for (const Expr* expr : a.exprs) {
    for (const Val* in : expr->inputs()) {
      if (in->isA<ir::TensorView>() && in->definition() == nullptr) read.insert(in);
    }
  }
  for (const Expr* expr : b.exprs) {
    for (const Val* in : expr->inputs()) {
      if (read.count(in)) return in;
    }
  }
  return nullptr;
}

}  // namespace

void mergeSiblingReductions(const CompleteFusionIndex& index, std::vector<CandidateGroup>& groups,
                            const GroupSchedulable& schedulable, const DecisionLog& log) {
  int nextId = 0;
  for (const CandidateGroup& group : groups) nextId = std::max(nextId, group.id + 1);
  std::set<std::pair<int, int>> refused;
  int tries = 0;
  bool merged = true;
  while (merged && tries < kMaxTries) {
    merged = false;
    const auto producers = producersOf(index, groups);
    for (size_t a = 0; a < groups.size() && !merged && tries < kMaxTries; ++a) {
      if (groups[a].sealed || groups[a].segmentSet || !reduces(groups[a])) continue;
      for (size_t b = a + 1; b < groups.size() && tries < kMaxTries; ++b) {
        if (groups[b].sealed || groups[b].segmentSet || !reduces(groups[b])) continue;
        if (refused.count({groups[a].id, groups[b].id})) continue;
        const Val* shared = sharedInput(groups[a], groups[b]);
        if (shared == nullptr || dependsOn(producers, a, b) || dependsOn(producers, b, a)) {
          continue;
        }
        ++tries;
        std::vector<Expr*> exprs = groups[a].exprs;
        for (Expr* expr : groups[b].exprs) {
          if (std::find(exprs.begin(), exprs.end(), expr) == exprs.end()) exprs.push_back(expr);
        }
        index.sortTopologically(exprs);
        const std::string pair =
            "group " + std::to_string(groups[a].id) + " " + groupSummary(groups[a].exprs) +
            " and group " + std::to_string(groups[b].id) + " " + groupSummary(groups[b].exprs) +
            ", which both read " + shared->name();
        if (!schedulable(exprs)) {
          refused.insert({groups[a].id, groups[b].id});
          log.add("sibling_merge", {groups[a].id, groups[b].id}, false,
                  "no scheduler takes " + pair + " as one group");
          continue;
        }
        log.add("sibling_merge", {groups[a].id, groups[b].id}, true,
                pair + ", merge into group " + std::to_string(nextId) + ": the input is read once");
        groups[a].exprs = std::move(exprs);
        groups[a].id = nextId++;
        groups[a].acceptedBy.reset();
        groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(b));
        merged = true;
        break;
      }
    }
  }
}

}  // namespace fuserlab::segmenter
