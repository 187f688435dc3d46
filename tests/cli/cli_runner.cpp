#include "tests/cli/cli_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fuserlab::cli {

CliResult runCli(const std::string& args) {
  const std::string stderrPath = (std::filesystem::temp_directory_path() /
                                  ("fuserlab_cli_stderr_" +
                                   std::to_string(getpid())))
                                     .string();
  const std::string command = std::string(FUSERLAB_CLI_PATH) + " " + args +
                              " 2>" + stderrPath;
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

std::string source(const std::string& relative) {
  return std::string(FUSERLAB_SOURCE_DIR) + "/" + relative;
}

std::vector<std::string> bundledExamples() {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(source("resources/examples"))) {
    if (entry.path().extension() == ".py") {
      files.push_back(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace fuserlab::cli
