// WorkerRunner: the parent side of the worker protocol (worker.h).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "core/ir/error.h"
#include "tuner/worker.h"

namespace fuserlab::tuner {
namespace {

std::string exitText(int status) {
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

bool writeAll(int fd, const std::string& text) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

WorkerRunner::WorkerRunner(std::vector<std::string> argv, double timeoutSeconds)
    : argv_(std::move(argv)), timeoutSeconds_(timeoutSeconds) {
  FL_ASSERT(!argv_.empty(), "a worker without a command");
  // A worker that dies must not kill the parent with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerRunner::~WorkerRunner() { stopWorker(); }

std::optional<double> WorkerRunner::copyBytesPerSecond() const {
  const double bandwidth = copyBytesPerSecond_.load();
  return bandwidth > 0 ? std::optional<double>(bandwidth) : std::nullopt;
}

void WorkerRunner::stopWorker() {
  if (toWorker_ >= 0) ::close(toWorker_);
  if (fromWorker_ >= 0) ::close(fromWorker_);
  toWorker_ = fromWorker_ = -1;
  buffered_.clear();
  if (pid_ > 0) {
    int status = 0;
    // Closing its stdin ends a healthy worker; one that does not end soon
    // is killed.
    for (int i = 0; i < 50 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      ::usleep(20000);
      if (i == 49) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
      }
    }
  }
  pid_ = -1;
}

bool WorkerRunner::readLine(std::string& line, double timeoutSeconds, std::string* error) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  for (;;) {
    if (auto newline = buffered_.find('\n'); newline != std::string::npos) {
      line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      *error = "timed out after " + std::to_string(static_cast<int>(timeoutSeconds)) + " s";
      return false;
    }
    pollfd p{fromWorker_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(fromWorker_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
      *error = "the worker " + exitText(status);
      return false;
    }
    buffered_.append(chunk, static_cast<size_t>(n));
  }
}

bool WorkerRunner::ensureWorker(std::string* error) {
  if (pid_ > 0) return true;
  int in[2], out[2];
  FL_CHECK(::pipe2(in, O_CLOEXEC) == 0 && ::pipe2(out, O_CLOEXEC) == 0,
           "cannot create pipes for the tuning worker: ", std::strerror(errno));
  // Built before fork: with one runner per GPU on its own thread (a
  // RunnerPool), another thread may hold the allocator's lock at the fork,
  // so the child calls nothing that allocates.
  std::vector<char*> args;
  for (const std::string& a : argv_) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  FL_CHECK(pid >= 0, "cannot start the tuning worker: ", std::strerror(errno));
  if (pid == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    // The worker must not see the parent's Ctrl-C: the parent stops it.
    ::setpgid(0, 0);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  pid_ = pid;
  toWorker_ = in[1];
  fromWorker_ = out[0];
  ++started_;
  std::string line;
  if (!readLine(line, timeoutSeconds_, error)) {
    *error = "the worker did not start: " + *error;
    stopWorker();
    return false;
  }
  try {
    const report::Json hello = report::Json::parse(line);
    if (const report::Json* fatal = hello.get("fatal")) {
      *error = "the worker could not set up: " + fatal->asString();
      stopWorker();
      return false;
    }
    if (const report::Json* bandwidth = hello.get("copy_bytes_per_s")) {
      copyBytesPerSecond_.store(bandwidth->asDouble());
    }
  } catch (const UserError&) {
    *error = "the worker answered '" + line + "' instead of a JSON greeting";
    stopWorker();
    return false;
  }
  return true;
}

VariantOutcome WorkerRunner::run(const TuningTarget& target, const Variant& variant) {
  VariantOutcome outcome;
  outcome.variant = variant.id;
  std::string error;
  if (!ensureWorker(&error)) {
    outcome.error = error;
    return outcome;
  }
  report::Json request = report::Json::object();
  request.set("variant", static_cast<int64_t>(variant.id));
  request.set("params", scheduler::paramsToJson(variant.params));
  std::string line;
  if (!writeAll(toWorker_, request.dump(-1) + "\n") || !readLine(line, timeoutSeconds_, &error)) {
    outcome.error = "variant " + std::to_string(variant.id) + ": " +
                    (error.empty() ? "the worker stopped reading" : error);
    if (pid_ > 0) ::kill(pid_, SIGKILL);
    stopWorker();
    return outcome;
  }
  try {
    const report::Json reply = report::Json::parse(line);
    if (const report::Json* check = reply.get("check")) outcome.check = check->asString();
    if (const report::Json* e = reply.get("error")) {
      outcome.error = e->asString();
      const report::Json* fatal = reply.get("fatal");
      if (fatal != nullptr && fatal->asBool()) stopWorker();
      return outcome;
    }
    const report::Json* list = reply.get("samples");
    FL_CHECK(list != nullptr && list->isArray(), "no samples");
    std::vector<double> samples;
    for (const report::Json& s : list->items()) samples.push_back(s.asDouble());
    FL_CHECK(!samples.empty(), "no samples");
    outcome.stats = summarize(samples);
    if (const report::Json* redone = reply.get("redone")) outcome.redoneSamples = redone->asInt();
  } catch (const std::exception& e) {
    outcome.error = "the worker's answer '" + line + "' is not a measurement: " + e.what();
    stopWorker();
  }
  return outcome;
}

}  // namespace fuserlab::tuner
