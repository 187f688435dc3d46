#include "viz/layout_service.h"

#include "core/ir/error.h"
#include "viz/dot_writer.h"
#include "viz/graphviz_engine.h"
#include "viz/layout_budget.h"

namespace fuserlab::viz {

LayoutService::LayoutService(size_t cacheEntries)
    : cacheEntries_(cacheEntries), worker_([this] { run(); }) {}

LayoutService::~LayoutService() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  worker_.join();
}

LayoutService& LayoutService::shared() {
  static LayoutService service;
  return service;
}

void LayoutService::post(std::function<void()> work) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(work));
  }
  wake_.notify_one();
}

void LayoutService::run() {
  for (;;) {
    std::function<void()> work;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    work();  // a packaged_task: its exceptions go to its future
  }
}

std::future<std::shared_ptr<const Layout>> LayoutService::layout(const Graph& graph,
                                                                 const NodeSizes& sizes,
                                                                 bool leftToRight) {
  // The DOT text is made on the caller's thread: it needs no Graphviz.
  if (std::string refusal = layoutRefusal(graph); !refusal.empty()) {
    std::promise<std::shared_ptr<const Layout>> refused;
    refused.set_exception(std::make_exception_ptr(UserError(refusal)));
    return refused.get_future();
  }
  DotOptions options;
  options.sizes = &sizes;
  options.leftToRight = leftToRight;
  auto dot = std::make_shared<std::string>(toDot(graph, options));
  auto task = std::make_shared<std::packaged_task<std::shared_ptr<const Layout>()>>(
      [this, dot]() -> std::shared_ptr<const Layout> {
        {
          std::lock_guard lock(mutex_);
          if (auto it = cache_.find(*dot); it != cache_.end()) return it->second;
        }
        auto result = std::make_shared<const Layout>(layoutDotText(*dot));
        std::lock_guard lock(mutex_);
        ++computed_;
        cache_.emplace(*dot, result);
        cacheOrder_.push_back(*dot);
        while (cacheOrder_.size() > cacheEntries_) {
          cache_.erase(cacheOrder_.front());
          cacheOrder_.pop_front();
        }
        return result;
      });
  auto future = task->get_future();
  post([task] { (*task)(); });
  return future;
}

std::future<std::string> LayoutService::render(const Graph& graph, const std::string& format) {
  if (std::string refusal = layoutRefusal(graph); !refusal.empty()) {
    std::promise<std::string> refused;
    refused.set_exception(std::make_exception_ptr(UserError(refusal)));
    return refused.get_future();
  }
  auto dot = std::make_shared<std::string>(toDot(graph));
  auto task = std::make_shared<std::packaged_task<std::string()>>(
      [dot, format] { return renderDotText(*dot, format); });
  auto future = task->get_future();
  post([task] { (*task)(); });
  return future;
}

size_t LayoutService::cachedLayouts() const {
  std::lock_guard lock(mutex_);
  return cache_.size();
}

size_t LayoutService::layoutsComputed() const {
  std::lock_guard lock(mutex_);
  return computed_;
}

}  // namespace fuserlab::viz
