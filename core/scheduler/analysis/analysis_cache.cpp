#include "core/scheduler/analysis/analysis_cache.h"

#include <optional>
#include <string>

#include "core/scheduler/analysis/persistent_buffers.h"
#include "core/scheduler/analysis/reduction_pattern.h"

namespace fuserlab::scheduler {

struct AnalysisCacheScope::Entries {
  const ir::Fusion* segment = nullptr;
  const SegmentRuntimeInfo* info = nullptr;
  std::optional<ReductionPatternResult> reductionPattern;
  std::optional<ReductionPattern> buffersPattern;  // what `buffers` is for
  std::optional<PersistentBufferInfo> buffers;
  std::optional<PersistentBufferAnalysis> analysis;
  std::optional<ReductionPattern> untracedPattern;  // what `untraced` is for
  std::optional<std::optional<std::string>> untraced;
  std::optional<std::vector<ir::Expr*>> liveExprs;
  int hits = 0;
};

namespace {

thread_local AnalysisCacheScope::Entries* open = nullptr;

bool samePattern(const ReductionPattern& a, const ReductionPattern& b) {
  if (a.reductions.size() != b.reductions.size() || a.axes != b.axes || a.rank != b.rank ||
      a.innermost != b.innermost) {
    return false;
  }
  for (size_t i = 0; i < a.reductions.size(); ++i) {
    const ReductionInfo& x = a.reductions[i];
    const ReductionInfo& y = b.reductions[i];
    if (x.expr != y.expr || x.input != y.input || x.output != y.output || x.axes != y.axes) {
      return false;
    }
  }
  return true;
}

}  // namespace

AnalysisCacheScope::AnalysisCacheScope(const ir::Fusion& segment, const SegmentRuntimeInfo& info)
    : entries_(std::make_unique<Entries>()), previous_(open) {
  entries_->segment = &segment;
  entries_->info = &info;
  open = entries_.get();
}

AnalysisCacheScope::~AnalysisCacheScope() { open = previous_; }

int AnalysisCacheScope::hits() const { return entries_->hits; }

namespace analysis_cache {

AnalysisCacheScope::Entries* find(const ir::Fusion& segment, const SegmentRuntimeInfo* info) {
  if (open == nullptr || open->segment != &segment) return nullptr;
  if (info != nullptr && open->info != info) return nullptr;
  return open;
}

const ReductionPatternResult* reductionPattern(AnalysisCacheScope::Entries& e) {
  if (!e.reductionPattern) return nullptr;
  ++e.hits;
  return &*e.reductionPattern;
}

void setReductionPattern(AnalysisCacheScope::Entries& e, const ReductionPatternResult& result) {
  e.reductionPattern = result;
}

const PersistentBufferInfo* persistentBuffers(AnalysisCacheScope::Entries& e,
                                              const ReductionPattern& pattern) {
  if (!e.buffers || !samePattern(*e.buffersPattern, pattern)) return nullptr;
  ++e.hits;
  return &*e.buffers;
}

void setPersistentBuffers(AnalysisCacheScope::Entries& e, const ReductionPattern& pattern,
                          const PersistentBufferInfo& info) {
  e.buffersPattern = pattern;
  e.buffers = info;
}

bool evaluatesWith(const AnalysisCacheScope::Entries& e, const ir::ExpressionEvaluator& evaluator) {
  return e.info != nullptr && e.info->evaluator == &evaluator;
}

const std::optional<std::string>* untracedTensors(AnalysisCacheScope::Entries& e,
                                                  const ReductionPattern& pattern) {
  if (!e.untraced || !samePattern(*e.untracedPattern, pattern)) return nullptr;
  ++e.hits;
  return &*e.untraced;
}

void setUntracedTensors(AnalysisCacheScope::Entries& e, const ReductionPattern& pattern,
                        const std::optional<std::string>& reason) {
  e.untracedPattern = pattern;
  e.untraced = reason;
}

const PersistentBufferAnalysis* persistentBufferAnalysis(AnalysisCacheScope::Entries& e) {
  if (!e.analysis) return nullptr;
  ++e.hits;
  return &*e.analysis;
}

void setPersistentBufferAnalysis(AnalysisCacheScope::Entries& e,
                                 const PersistentBufferAnalysis& analysis) {
  e.analysis = analysis;
}

}  // namespace analysis_cache

std::vector<ir::Expr*> liveExprs(const ir::Fusion& segment) {
  AnalysisCacheScope::Entries* e = analysis_cache::find(segment);
  if (e == nullptr) return segment.exprsForOutputs();
  if (!e->liveExprs) e->liveExprs = segment.exprsForOutputs();
  return *e->liveExprs;
}

}  // namespace fuserlab::scheduler
