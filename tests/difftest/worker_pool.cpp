#include "tests/difftest/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>

#include "core/ir/error.h"

namespace fuserlab::difftest {
namespace {

using Clock = std::chrono::steady_clock;

struct Worker {
  pid_t pid = -1;
  int out = -1;  //!< read end of the worker's stdout
  std::string errPath;
  size_t job = 0;
  int64_t from = 0;       //!< first case index of this worker's range
  int64_t to = 0;         //!< one past the last
  int64_t started = -1;   //!< the case in flight, -1 when none
  int64_t finished = -1;  //!< the last case with a result, -1 before the first
  std::string buffer;
  Clock::time_point lastActivity;
};

std::string tailOf(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > bytes) text = "..." + text.substr(text.size() - bytes);
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

Worker spawn(const PoolOptions& options, const std::vector<WorkerJob>& jobs, size_t job,
             int64_t from, int64_t to, int slot) {
  Worker w;
  w.job = job;
  w.from = from;
  w.to = to;
  w.errPath =
      "/tmp/fuserlab-difftest-" + std::to_string(getpid()) + "-" + std::to_string(slot) + ".err";
  int pipeFds[2];
  FL_CHECK(pipe(pipeFds) == 0, "pipe: ", std::strerror(errno));
  std::vector<std::string> args = {options.executable, "--worker"};
  args.insert(args.end(), options.workerArguments.begin(), options.workerArguments.end());
  const WorkerJob& j = jobs[job];
  args.insert(args.end(), {"--seed", std::to_string(j.firstSeed + static_cast<uint64_t>(from)),
                           "--count", std::to_string(to - from)});
  if (!j.shrinkPath.empty()) args.insert(args.end(), {"--path", j.shrinkPath});
  const pid_t pid = fork();
  FL_CHECK(pid >= 0, "fork: ", std::strerror(errno));
  if (pid == 0) {
    dup2(pipeFds[1], STDOUT_FILENO);
    const int err = open(w.errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) dup2(err, STDERR_FILENO);
    close(pipeFds[0]);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(pipeFds[1]);
  w.pid = pid;
  w.out = pipeFds[0];
  w.lastActivity = Clock::now();
  return w;
}

std::string describeExit(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

}  // namespace

void runJobs(const PoolOptions& options, const std::vector<WorkerJob>& jobs,
             const std::function<void(size_t, int64_t, const CaseResult&)>& onResult) {
  struct Range {
    size_t job;
    int64_t from, to;
  };
  std::deque<Range> pending;
  for (size_t j = 0; j < jobs.size(); ++j) pending.push_back({j, 0, jobs[j].count});
  std::vector<Worker> workers(static_cast<size_t>(std::max(1, options.jobs)));
  auto idle = [](const Worker& w) { return w.pid < 0; };
  for (;;) {
    for (size_t slot = 0; slot < workers.size(); ++slot) {
      if (!idle(workers[slot]) || pending.empty()) continue;
      const Range r = pending.front();
      pending.pop_front();
      workers[slot] = spawn(options, jobs, r.job, r.from, r.to, static_cast<int>(slot));
    }
    std::vector<pollfd> fds;
    std::vector<size_t> slots;
    for (size_t slot = 0; slot < workers.size(); ++slot) {
      if (idle(workers[slot])) continue;
      fds.push_back({workers[slot].out, POLLIN, 0});
      slots.push_back(slot);
    }
    if (fds.empty()) break;
    poll(fds.data(), fds.size(), 500);
    for (size_t k = 0; k < fds.size(); ++k) {
      Worker& w = workers[slots[k]];
      bool ended = false;
      std::string why;
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        char chunk[4096];
        const ssize_t n = read(w.out, chunk, sizeof chunk);
        if (n <= 0) {
          ended = true;
        } else {
          w.lastActivity = Clock::now();
          w.buffer.append(chunk, static_cast<size_t>(n));
          size_t eol;
          while ((eol = w.buffer.find('\n')) != std::string::npos) {
            const std::string line = w.buffer.substr(0, eol);
            w.buffer.erase(0, eol + 1);
            std::istringstream in(line);
            std::string word;
            int64_t index = -1;
            in >> word >> index;
            if (word == "start") {
              w.started = index;
            } else if (word == "result") {
              CaseResult result;
              std::string status;
              in >> status >> result.kernels;
              std::getline(in >> std::ws, result.detail);
              result.status = statusFromString(status);
              w.started = -1;
              w.finished = index;
              onResult(w.job, w.from + index, result);
            }
          }
        }
      }
      const double silent = std::chrono::duration<double>(Clock::now() - w.lastActivity).count();
      if (!ended && w.started >= 0 && silent > options.caseTimeoutSeconds) {
        kill(w.pid, SIGKILL);
        why = "no result after " + std::to_string(static_cast<int>(silent)) + " s (hung); ";
        ended = true;
      }
      if (!ended) continue;
      close(w.out);
      int status = 0;
      waitpid(w.pid, &status, 0);
      if (w.started >= 0) {
        CaseResult crash;
        crash.status = Status::Crash;
        crash.detail =
            why + "the worker " + describeExit(status) + "; stderr: " + tailOf(w.errPath, 400);
        onResult(w.job, w.from + w.started, crash);
        if (w.from + w.started + 1 < w.to) {
          pending.push_front({w.job, w.from + w.started + 1, w.to});
        }
      } else if (w.finished >= 0 && w.from + w.finished + 1 < w.to) {
        // Stopped after a result (a case that left the CUDA context
        // unusable): a new worker takes the rest.
        pending.push_front({w.job, w.from + w.finished + 1, w.to});
      } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        // Died before its first case: its cases are not run (the summary
        // counts them), rather than restarting a worker that cannot start.
        std::fprintf(stderr, "difftest: a worker %s before starting a case; stderr: %s\n",
                     describeExit(status).c_str(), tailOf(w.errPath, 400).c_str());
      }
      unlink(w.errPath.c_str());
      w.pid = -1;
      w.started = -1;
      w.finished = -1;
      w.buffer.clear();
    }
  }
}

int workerMain(const WorkerJob& job,
               const std::function<CaseResult(uint64_t, const std::string&)>& run) {
  for (int64_t i = 0; i < job.count; ++i) {
    std::printf("start %lld\n", static_cast<long long>(i));
    std::fflush(stdout);
    const CaseResult result = run(job.firstSeed + static_cast<uint64_t>(i), job.shrinkPath);
    std::string detail = result.detail;
    for (char& c : detail) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    std::printf("result %lld %s %d %s\n", static_cast<long long>(i), toString(result.status),
                result.kernels, detail.c_str());
    std::fflush(stdout);
    if (result.restartWorker && i + 1 < job.count) return 3;  // the pool starts a new one
  }
  return 0;
}

}  // namespace fuserlab::difftest
