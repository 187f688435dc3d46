#include "tests/cli/cli_runner.h"
#include "tests/source_dir.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace fuserlab::cli {

CliResult runCli(const std::string& args) {
  const std::string stderrPath =
      (std::filesystem::temp_directory_path() / ("fuserlab_cli_stderr_" + std::to_string(getpid())))
          .string();
  const std::string command = std::string(FUSERLAB_CLI_PATH) + " " + args + " 2>" + stderrPath;
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.stdoutText.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(stderrPath);
  std::stringstream errText;
  errText << err.rdbuf();
  std::filesystem::remove(stderrPath);
  result.output = result.stdoutText + errText.str();
  return result;
}

namespace {

std::string readAtMost(const std::string& path, size_t maxBytes) {
  std::ifstream in(path, std::ios::binary);
  std::string text(maxBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(maxBytes));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

}  // namespace

BoundedCliResult runCliBounded(const std::vector<std::string>& args, uint64_t addressSpaceBytes,
                               int timeoutSeconds) {
  const std::string stem = (std::filesystem::temp_directory_path() /
                            ("fuserlab_cli_bounded_" + std::to_string(getpid())))
                               .string();
  const std::string outPath = stem + ".out";
  const std::string errPath = stem + ".err";
  // Everything the child needs is made before fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> argvText = {FUSERLAB_CLI_PATH};
  argvText.insert(argvText.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argvText) argv.push_back(a.data());
  argv.push_back(nullptr);

  BoundedCliResult result;
  const pid_t pid = fork();
  if (pid < 0) return result;
  if (pid == 0) {
    if (addressSpaceBytes > 0) {
      const rlimit limit{addressSpaceBytes, addressSpaceBytes};
      setrlimit(RLIMIT_AS, &limit);
    }
    const rlimit noCore{0, 0};
    setrlimit(RLIMIT_CORE, &noCore);
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return result;
    if (std::chrono::steady_clock::now() > deadline) {
      result.timedOut = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  constexpr size_t kMaxOutputBytes = size_t{1} << 20;
  result.output = readAtMost(outPath, kMaxOutputBytes) + readAtMost(errPath, kMaxOutputBytes);
  std::filesystem::remove(outPath);
  std::filesystem::remove(errPath);
  return result;
}

std::string source(const std::string& relative) {
  return fuserlab::test::sourceDir() + "/" + relative;
}

std::vector<std::string> bundledExamples() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(source("resources/examples"))) {
    if (entry.path().extension() == ".py") {
      files.push_back(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace fuserlab::cli
