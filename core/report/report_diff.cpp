#include "core/report/report_diff.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace fuserlab::report {
namespace {

// What a segment computes: the values its exprs write.
std::set<std::string> written(const SegmentReport& segment) {
  std::set<std::string> out;
  for (const ExprReport& expr : segment.exprFlow)
    out.insert(expr.outputs.begin(), expr.outputs.end());
  for (const std::string& name : segment.outputs) out.insert(name);
  return out;
}

std::string text(const Json& value) { return value.isString() ? value.asString() : value.dump(-1); }

void addMembers(const std::string& prefix, const Json& a, const Json& b,
                std::vector<FieldDiff>& fields) {
  std::map<std::string, std::pair<std::string, std::string>> merged;
  if (a.isObject()) {
    for (const auto& [key, value] : a.members()) merged[key].first = text(value);
  }
  if (b.isObject()) {
    for (const auto& [key, value] : b.members()) merged[key].second = text(value);
  }
  for (const auto& [key, values] : merged) {
    fields.push_back({prefix + key, values.first, values.second});
  }
}

std::string exprsText(const SegmentReport* segment) {
  if (segment == nullptr) return "";
  std::string out;
  for (const ExprReport& expr : segment->exprFlow) {
    if (!out.empty()) out += "; ";
    for (size_t i = 0; i < expr.outputs.size(); ++i) out += (i ? ", " : "") + expr.outputs[i];
    out += " = " + expr.op;
  }
  return out;
}

SegmentPair describe(const SegmentReport* a, const SegmentReport* b) {
  SegmentPair pair;
  pair.a = a ? a->id : -1;
  pair.b = b ? b->id : -1;
  pair.fields.push_back({"scheduler", a ? a->scheduler : "", b ? b->scheduler : ""});
  pair.fields.push_back({"exprs", exprsText(a), exprsText(b)});
  addMembers("params.", a ? a->params : Json(), b ? b->params : Json(), pair.fields);
  addMembers("properties.", a ? a->properties : Json(), b ? b->properties : Json(), pair.fields);
  if (a == nullptr) {
    pair.change = SegmentChange::Added;
  } else if (b == nullptr) {
    pair.change = SegmentChange::Removed;
  } else if (a->scheduler != b->scheduler) {
    pair.change = SegmentChange::Rescheduled;
  } else {
    pair.change = pair.differingFields() > 0 ? SegmentChange::Changed : SegmentChange::Same;
  }
  return pair;
}

}  // namespace

const char* toString(SegmentChange change) {
  switch (change) {
    case SegmentChange::Same: return "same";
    case SegmentChange::Changed: return "changed";
    case SegmentChange::Rescheduled: return "rescheduled";
    case SegmentChange::Added: return "added";
    case SegmentChange::Removed: return "removed";
  }
  return "?";
}

int SegmentPair::differingFields() const {
  return static_cast<int>(
      std::count_if(fields.begin(), fields.end(), [](const FieldDiff& f) { return f.differs(); }));
}

int ReportDiff::differences() const {
  int n = static_cast<int>(std::count_if(summary.begin(), summary.end(),
                                         [](const FieldDiff& f) { return f.differs(); }));
  for (const SegmentPair& pair : segments) n += pair.differingFields();
  return n;
}

ReportDiff diffReports(const CompileReport& a, const CompileReport& b) {
  ReportDiff diff;
  const auto hostSteps = [](const CompileReport& r) {
    return std::to_string(r.segments.size() - static_cast<size_t>(r.kernelCount()));
  };
  diff.summary = {
      {"segments", std::to_string(a.segments.size()), std::to_string(b.segments.size())},
      {"kernels", std::to_string(a.kernelCount()), std::to_string(b.kernelCount())},
      {"host steps", hostSteps(a), hostSteps(b)}};

  // Greedy pairing by the share of written values two segments have in
  // common, best pairs first; ties keep segment order.
  std::vector<std::set<std::string>> wa, wb;
  for (const SegmentReport& s : a.segments) wa.push_back(written(s));
  for (const SegmentReport& s : b.segments) wb.push_back(written(s));
  struct Candidate {
    double score;
    size_t i, j;
  };
  // Only pairs that share a written value are scored: B's segments by the
  // values they write, then each A segment's shared counts (linear in the
  // values, not in A x B: a fusion of thousands of segments).
  std::unordered_map<std::string, std::vector<size_t>> writersInB;
  for (size_t j = 0; j < wb.size(); ++j) {
    for (const std::string& name : wb[j]) writersInB[name].push_back(j);
  }
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < wa.size(); ++i) {
    std::map<size_t, size_t> common;  // B segment -> values shared with A's i
    for (const std::string& name : wa[i]) {
      if (auto it = writersInB.find(name); it != writersInB.end()) {
        for (size_t j : it->second) ++common[j];
      }
    }
    for (const auto& [j, shared] : common) {
      const double score =
          static_cast<double>(shared) / static_cast<double>(wa[i].size() + wb[j].size() - shared);
      candidates.push_back({score, i, j});
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& x, const Candidate& y) { return x.score > y.score; });
  std::vector<int> partnerOfA(a.segments.size(), -1), partnerOfB(b.segments.size(), -1);
  for (const Candidate& c : candidates) {
    if (partnerOfA[c.i] >= 0 || partnerOfB[c.j] >= 0) continue;
    partnerOfA[c.i] = static_cast<int>(c.j);
    partnerOfB[c.j] = static_cast<int>(c.i);
  }
  // In A's order; B's unpaired segments after the A segment before them.
  size_t nextB = 0;
  const auto flushAddedBefore = [&](size_t limit) {
    for (; nextB < limit && nextB < b.segments.size(); ++nextB) {
      if (partnerOfB[nextB] < 0) diff.segments.push_back(describe(nullptr, &b.segments[nextB]));
    }
  };
  for (size_t i = 0; i < a.segments.size(); ++i) {
    if (partnerOfA[i] >= 0) {
      flushAddedBefore(static_cast<size_t>(partnerOfA[i]));
      diff.segments.push_back(describe(&a.segments[i], &b.segments[partnerOfA[i]]));
    } else {
      diff.segments.push_back(describe(&a.segments[i], nullptr));
    }
  }
  flushAddedBefore(b.segments.size());
  return diff;
}

}  // namespace fuserlab::report
