// AnalysisCache: the per-segment analyses every scheduler repeats (the
// reduction pattern, the persistent buffers, the run-time persistent buffer
// analysis, whether every tensor follows the reference's axes), computed
// once while one segment is being scheduled.
//
// chooseScheduler and canSchedule ask each registered scheduler, in turn, to
// check a segment at compile time and at run time, then compute its
// heuristics, validate them and describe its properties; each step of the
// reduction and persistent schedulers starts from the same analyses of the
// same segment at the same sizes. An AnalysisCacheScope, open around those
// calls, keeps their results: the analysis functions (analyzeReductionPattern,
// findPersistentBuffers, analyzePersistentBuffers) look them up in the open
// scope when it is about the segment (and, for run-time results, the
// SegmentRuntimeInfo) they are asked about, and compute them otherwise.
// Nothing is kept once the scope closes, so a segment or sizes that change
// between two scopes are never served stale results.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/fusion.h"
#include "core/scheduler/runtime_info.h"

namespace fuserlab::scheduler {

struct ReductionPatternResult;
struct ReductionPattern;
struct PersistentBufferInfo;
struct PersistentBufferAnalysis;

//! Opens a cache for `segment` scheduled with `info` on this thread, for the
//! scope's lifetime. Scopes nest: an inner one for another segment hides
//! the outer one until it closes. Both objects must outlive the scope and
//! stay unchanged during it.
class AnalysisCacheScope {
 public:
  AnalysisCacheScope(const ir::Fusion& segment, const SegmentRuntimeInfo& info);
  ~AnalysisCacheScope();
  AnalysisCacheScope(const AnalysisCacheScope&) = delete;
  AnalysisCacheScope& operator=(const AnalysisCacheScope&) = delete;

  //! How many analyses this scope served from the cache (for tests).
  int hits() const;

  struct Entries;

 private:
  std::unique_ptr<Entries> entries_;
  Entries* previous_ = nullptr;
};

namespace analysis_cache {

//! The open scope's entries when it is about `segment` (and `info`, when
//! given); nullptr otherwise.
AnalysisCacheScope::Entries* find(const ir::Fusion& segment,
                                  const SegmentRuntimeInfo* info = nullptr);

//! The cached results; each getter returns nullptr until its setter ran.
const ReductionPatternResult* reductionPattern(AnalysisCacheScope::Entries& e);
void setReductionPattern(AnalysisCacheScope::Entries& e, const ReductionPatternResult& result);
//! The buffers found for `pattern`: only when it is the cached pattern
//! (same reductions, same axes).
const PersistentBufferInfo* persistentBuffers(AnalysisCacheScope::Entries& e,
                                              const ReductionPattern& pattern);
void setPersistentBuffers(AnalysisCacheScope::Entries& e, const ReductionPattern& pattern,
                          const PersistentBufferInfo& info);
//! Whether the scope's sizes are `evaluator`'s (run-time results hold only
//! for them).
bool evaluatesWith(const AnalysisCacheScope::Entries& e, const ir::ExpressionEvaluator& evaluator);
//! rejectUntracedTensors' answer for `pattern` (only when it is the cached
//! pattern); nullptr until set.
const std::optional<std::string>* untracedTensors(AnalysisCacheScope::Entries& e,
                                                  const ReductionPattern& pattern);
void setUntracedTensors(AnalysisCacheScope::Entries& e, const ReductionPattern& pattern,
                        const std::optional<std::string>& reason);
const PersistentBufferAnalysis* persistentBufferAnalysis(AnalysisCacheScope::Entries& e);
void setPersistentBufferAnalysis(AnalysisCacheScope::Entries& e,
                                 const PersistentBufferAnalysis& analysis);

}  // namespace analysis_cache

//! segment.exprsForOutputs(): the schedulers each walk the segment's exprs;
//! computed once while a scope about `segment` is open (not counted in
//! hits()), otherwise each time.
std::vector<ir::Expr*> liveExprs(const ir::Fusion& segment);

}  // namespace fuserlab::scheduler
