#include "tuner/strategy.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "core/ir/error.h"

namespace fuserlab::tuner {
namespace {

size_t capOf(const StrategyOptions& options, size_t available) {
  if (options.budget <= 0) return available;
  return std::min(available, static_cast<size_t>(options.budget));
}

// The default first, then the rest in a seeded Fisher-Yates order (written
// out rather than std::shuffle, whose algorithm differs between libraries).
std::vector<size_t> randomOrder(const SearchSpace& space, uint64_t seed) {
  std::vector<size_t> order;
  for (size_t i = 1; i < space.variants.size(); ++i) order.push_back(i);
  std::mt19937_64 rng(seed);
  for (size_t i = order.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(rng() % i);
    std::swap(order[i - 1], order[j]);
  }
  order.insert(order.begin(), 0);
  return order;
}

// Variants one knob away from `point` along knob `k` (accepted ones only).
std::vector<size_t> alongKnob(const SearchSpace& space, const Point& point, size_t k) {
  std::vector<size_t> ids;
  Point p = point;
  for (size_t i = 0; i < space.knobs[k].values.size(); ++i) {
    p[k] = static_cast<int64_t>(i);
    if (auto id = space.variantAt(p)) ids.push_back(*id);
  }
  return ids;
}

class Evaluation {
 public:
  Evaluation(const StrategyOptions& options, const MeasureBatch& measure,
             const std::atomic<bool>* cancel, size_t cap)
      : options_(options), measure_(measure), cancel_(cancel), cap_(cap) {}

  bool cancelled() const { return cancel_ != nullptr && cancel_->load(); }
  bool exhausted() const { return result.evaluated.size() >= cap_; }

  // Measures those of `ids` not yet measured, in batches, within the cap.
  void evaluate(const std::vector<size_t>& ids) {
    std::vector<size_t> pending;
    for (size_t id : ids) {
      if (costs_.count(id) || std::count(pending.begin(), pending.end(), id)) continue;
      if (result.evaluated.size() + pending.size() >= cap_) break;
      pending.push_back(id);
    }
    for (size_t begin = 0; begin < pending.size(); begin += options_.batchSize) {
      if (cancelled()) {
        result.cancelled = true;
        return;
      }
      const size_t end = std::min(pending.size(), begin + options_.batchSize);
      const std::vector<size_t> batch(pending.begin() + begin, pending.begin() + end);
      const auto costs = measure_(batch);
      FL_ASSERT(costs.size() == batch.size(), "measured ", costs.size(), " of a batch of ",
                batch.size());
      for (size_t i = 0; i < batch.size(); ++i) {
        costs_[batch[i]] = costs[i];
        result.evaluated.push_back(batch[i]);
        result.costs.push_back(costs[i]);
        if (costs[i] && (!result.best || *costs[i] < *costs_[*result.best])) {
          result.best = batch[i];
        }
      }
    }
    if (cancelled()) result.cancelled = true;
  }

  std::optional<double> cost(size_t id) const {
    auto it = costs_.find(id);
    return it == costs_.end() ? std::nullopt : it->second;
  }

  StrategyResult result;

 private:
  const StrategyOptions& options_;
  const MeasureBatch& measure_;
  const std::atomic<bool>* cancel_;
  size_t cap_;
  std::map<size_t, std::optional<double>> costs_;
};

void coordinateDescent(const SearchSpace& space, Evaluation& eval) {
  Point current = space.defaultPoint;
  eval.evaluate({0});
  for (;;) {
    bool moved = false;
    for (size_t k = 0; k < space.knobs.size(); ++k) {
      if (eval.result.cancelled || eval.exhausted()) return;
      const std::vector<size_t> ids = alongKnob(space, current, k);
      eval.evaluate(ids);
      const size_t here = *space.variantAt(current);
      std::optional<double> bestCost = eval.cost(here);
      std::optional<size_t> bestId;
      for (size_t id : ids) {
        const auto c = eval.cost(id);
        if (c && (!bestCost || *c < *bestCost)) {
          bestCost = c;
          bestId = id;
        }
      }
      if (bestId) {
        // Move along knob k only: the variant's own point may be another
        // point of the same params.
        Point next = current;
        for (size_t i = 0; i < space.knobs[k].values.size(); ++i) {
          next[k] = static_cast<int64_t>(i);
          if (space.variantAt(next) == bestId) break;
        }
        current = next;
        moved = true;
      }
    }
    if (!moved) return;
  }
}

}  // namespace

std::string_view toString(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::Exhaustive: return "exhaustive";
    case StrategyKind::Random: return "random";
    case StrategyKind::Coordinate: return "coordinate";
  }
  return "?";
}

StrategyKind parseStrategy(std::string_view text) {
  if (text == "exhaustive") return StrategyKind::Exhaustive;
  if (text == "random") return StrategyKind::Random;
  if (text == "coordinate") return StrategyKind::Coordinate;
  FL_USER_ERROR("--strategy must be exhaustive, random or coordinate, found '", std::string(text),
                "'");
}

std::vector<size_t> plannedVariants(const SearchSpace& space, const StrategyOptions& options) {
  std::vector<size_t> ids;
  switch (options.kind) {
    case StrategyKind::Exhaustive:
      for (size_t i = 0; i < space.variants.size(); ++i) ids.push_back(i);
      break;
    case StrategyKind::Random: ids = randomOrder(space, options.seed); break;
    case StrategyKind::Coordinate: {
      std::set<size_t> seen = {0};
      ids.push_back(0);
      for (size_t k = 0; k < space.knobs.size(); ++k) {
        for (size_t id : alongKnob(space, space.defaultPoint, k)) {
          if (seen.insert(id).second) ids.push_back(id);
        }
      }
      break;
    }
  }
  ids.resize(capOf(options, ids.size()));
  return ids;
}

StrategyResult runStrategy(const SearchSpace& space, const StrategyOptions& options,
                           const MeasureBatch& measure, const std::atomic<bool>* cancel) {
  FL_ASSERT(!space.variants.empty(), "a search space without its default");
  FL_ASSERT(options.batchSize > 0, "a strategy batch size of 0");
  Evaluation eval(options, measure, cancel, capOf(options, space.variants.size()));
  switch (options.kind) {
    case StrategyKind::Exhaustive:
    case StrategyKind::Random: eval.evaluate(plannedVariants(space, options)); break;
    case StrategyKind::Coordinate: coordinateDescent(space, eval); break;
  }
  return eval.result;
}

}  // namespace fuserlab::tuner
