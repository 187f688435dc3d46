// LayoutService: every Graphviz call of the process on one worker thread, in
// the order asked, each answered through a std::future (an exception thrown
// by the work arrives through the future, never escapes the worker). Layouts
// are cached by their DOT text (graph and node sizes together), so laying
// out a segment's inside again, e.g. when a view re-expands it, is free.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "viz/graph.h"
#include "viz/layout.h"

namespace fuserlab::viz {

class LayoutService {
 public:
  //! `cacheEntries` layouts are kept; the oldest goes first.
  explicit LayoutService(size_t cacheEntries = 64);
  //! Finishes the work already asked for, then stops the worker.
  ~LayoutService();
  LayoutService(const LayoutService&) = delete;
  LayoutService& operator=(const LayoutService&) = delete;

  //! One service for the process (the CLI and the GUI share it).
  static LayoutService& shared();

  //! Lays `graph` out with nodes of `sizes` (others: defaultNodeSize),
  //! ranked top to bottom or, with `leftToRight`, left to right. A graph
  //! past kMaxLayoutUnits (layout_budget.h) is not laid out: the future
  //! holds a UserError saying why.
  std::future<std::shared_ptr<const Layout>> layout(const Graph& graph, const NodeSizes& sizes = {},
                                                    bool leftToRight = false);
  //! Renders `graph` with Graphviz ("svg", "png"), nodes sized to labels;
  //! past kMaxLayoutUnits, a UserError through the future, as layout().
  std::future<std::string> render(const Graph& graph, const std::string& format);

  size_t cachedLayouts() const;
  //! Layouts computed (not answered from the cache) since construction.
  size_t layoutsComputed() const;

 private:
  void post(std::function<void()> work);
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  size_t cacheEntries_;
  std::map<std::string, std::shared_ptr<const Layout>> cache_;
  std::deque<std::string> cacheOrder_;
  size_t computed_ = 0;
  std::thread worker_;  // last: starts after the members it uses exist
};

}  // namespace fuserlab::viz
