#include "tuner/runner_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "core/ir/error.h"
#include "core/ir/parse_number.h"

namespace fuserlab::tuner {

RunnerPool::RunnerPool(std::vector<std::unique_ptr<VariantRunner>> runners)
    : runners_(std::move(runners)), measured_(runners_.size(), 0) {
  FL_ASSERT(!runners_.empty(), "a runner pool without runners");
}

VariantOutcome RunnerPool::run(const TuningTarget& target, const Variant& variant) {
  ++measured_[0];
  return runners_[0]->run(target, variant);
}

void RunnerPool::runBatch(const TuningTarget& target, const std::vector<const Variant*>& variants,
                          const StopCheck& stop, const OutcomeSink& done) {
  // The runners' threads take variants off a shared counter and queue what
  // they finish; this thread hands each finished outcome to `done`.
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::deque<std::pair<size_t, VariantOutcome>> queue;
  size_t running = std::min(runners_.size(), variants.size());
  auto work = [&](size_t runner) {
    for (;;) {
      if (stop && stop()) break;
      const size_t i = next.fetch_add(1);
      if (i >= variants.size()) break;
      VariantOutcome outcome;
      // No exception leaves a thread: a runner that throws fails the variant.
      try {
        outcome = runners_[runner]->run(target, *variants[i]);
      } catch (const std::exception& error) {
        outcome.variant = variants[i]->id;
        outcome.error = std::string("the runner failed: ") + error.what();
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++measured_[runner];
      queue.emplace_back(i, std::move(outcome));
      finished.notify_one();
    }
    std::lock_guard<std::mutex> lock(mutex);
    --running;
    finished.notify_one();
  };
  std::vector<std::thread> threads;
  const size_t count = running;
  for (size_t r = 0; r < count; ++r) threads.emplace_back(work, r);
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex);
    finished.wait(lock, [&] { return !queue.empty() || running == 0; });
    if (queue.empty()) break;
    auto [index, outcome] = std::move(queue.front());
    queue.pop_front();
    lock.unlock();
    done(index, std::move(outcome));
  }
  for (std::thread& t : threads) t.join();
}

std::optional<double> RunnerPool::copyBytesPerSecond() const {
  // Read on the calling thread between batches or from a finished outcome:
  // a runner sets its value before it returns its first outcome.
  std::optional<double> highest;
  for (const auto& runner : runners_) {
    const auto bandwidth = runner->copyBytesPerSecond();
    if (bandwidth && (!highest || *bandwidth > *highest)) highest = bandwidth;
  }
  return highest;
}

std::vector<int> parseDeviceList(const std::string& text, int available) {
  std::vector<int> devices;
  if (text == "all") {
    FL_CHECK(available > 0, "--devices all: this machine has no CUDA device");
    for (int i = 0; i < available; ++i) devices.push_back(i);
    return devices;
  }
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(begin, end - begin);
    if (item.rfind("cuda:", 0) == 0) item = item.substr(5);
    const auto index = ir::tryParseInteger(item, 0, 1023);
    FL_CHECK(index.has_value(),
             "--devices is a list of GPU indices (0,1 or cuda:0,cuda:1) "
             "or 'all', found '",
             text, "'");
    FL_CHECK(*index < available, "--devices names GPU ", *index, " but this machine has ",
             available, " CUDA device(s)");
    bool seen = false;
    for (int d : devices) seen = seen || d == *index;
    if (!seen) devices.push_back(static_cast<int>(*index));
    begin = end + 1;
  }
  std::sort(devices.begin(), devices.end());
  return devices;
}

}  // namespace fuserlab::tuner
