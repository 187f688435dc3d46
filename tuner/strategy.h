// Search strategies over a SearchSpace, in the spirit of TVM meta-schedule's
// search strategies: which variants to measure, in batches (so the builder
// compiles a batch in parallel before the runner measures it one by one).
//   exhaustive  - every variant, the default first;
//   random      - the default, then variants drawn without replacement by a
//                 seeded generator (the same seed draws the same variants on
//                 every platform);
//   coordinate  - coordinate descent from the default: vary one knob at a
//                 time with the others fixed, move to the fastest, repeat
//                 until a full pass over the knobs improves nothing.
// A budget caps the number of distinct variants evaluated (0: no cap).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/search_space.h"

namespace fuserlab::tuner {

enum class StrategyKind { Exhaustive, Random, Coordinate };
std::string_view toString(StrategyKind kind);
//! "exhaustive", "random" or "coordinate"; UserError otherwise.
StrategyKind parseStrategy(std::string_view text);

struct StrategyOptions {
  StrategyKind kind = StrategyKind::Exhaustive;
  int64_t budget = 0;  //!< distinct variants at most; 0: no cap
  uint64_t seed = 0;
  size_t batchSize = 16;  //!< variants handed to `measure` at once
};

//! Measures variants (ids into the space): a cost per id (lower is better,
//! e.g. the median in ns), nullopt for a variant that failed.
using MeasureBatch = std::function<std::vector<std::optional<double>>(const std::vector<size_t>&)>;

struct StrategyResult {
  std::vector<size_t> evaluated;             //!< in the order they were measured
  std::vector<std::optional<double>> costs;  //!< per evaluated entry
  //! The cheapest evaluated variant (by cost alone; the decision rule of
  //! decision.h decides whether it replaces the default).
  std::optional<size_t> best;
  bool cancelled = false;
};

//! Runs `options`' strategy; stops early (cancelled) when `cancel` is set
//! between batches.
StrategyResult runStrategy(const SearchSpace& space, const StrategyOptions& options,
                           const MeasureBatch& measure, const std::atomic<bool>* cancel = nullptr);

//! The variants exhaustive or random would measure, in order (what a dry run
//! lists); coordinate descent is adaptive: its first batch (the default and
//! the variants one knob away from it).
std::vector<size_t> plannedVariants(const SearchSpace& space, const StrategyOptions& options);

}  // namespace fuserlab::tuner
