#include "core/cuda/ptxas_usage.h"

#include <cctype>
#include <sstream>
#include <vector>

#include "core/ir/parse_number.h"

namespace fuserlab::runtime {
namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// The integer just before `unit` in `line` ("40" in "Used 40 registers"),
// or nullopt when `unit` is absent.
std::optional<int64_t> numberBefore(const std::string& line, const std::string& unit) {
  const size_t at = line.find(unit);
  if (at == std::string::npos) return std::nullopt;
  size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) {
    --begin;
  }
  if (begin == end) return std::nullopt;
  return ir::tryParseInteger(std::string_view(line).substr(begin, end - begin));
}

// "ptxas info    : ..." and its continuation "ptxas         .     ..."
// (NVRTC's form of the indented property line); not "ptxas warning".
bool isPtxasInfo(const std::string& line) {
  if (line.rfind("ptxas info", 0) == 0) return true;
  if (line.rfind("ptxas ", 0) != 0) return false;
  const size_t text = line.find_first_not_of(' ', 5);
  return text != std::string::npos && line[text] == '.';
}

}  // namespace

std::string PtxasUsage::toString() const {
  return std::to_string(registers) + " registers, " + std::to_string(spillStoreBytes) +
         " bytes spill stores, " + std::to_string(spillLoadBytes) + " bytes spill loads, " +
         std::to_string(stackFrameBytes) + " bytes stack, " + std::to_string(sharedMemoryBytes) +
         " bytes static shared memory";
}

std::optional<PtxasUsage> parsePtxasUsage(const std::string& log, const std::string& kernelName) {
  const std::vector<std::string> lines = linesOf(log);
  const std::string entry = "Compiling entry function '" + kernelName + "'";
  const std::string properties = "Function properties for " + kernelName;
  PtxasUsage usage;
  bool inEntry = false;
  bool found = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("ptxas info", 0) != 0) continue;
    if (line.find("Compiling entry function") != std::string::npos) {
      inEntry = line.find(entry) != std::string::npos;
      continue;
    }
    if (!inEntry) continue;
    const size_t at = line.find(properties);
    if (at != std::string::npos && at + properties.size() == line.size() && i + 1 < lines.size()) {
      const std::string& next = lines[i + 1];
      usage.stackFrameBytes = numberBefore(next, "bytes stack frame").value_or(0);
      usage.spillStoreBytes = numberBefore(next, "bytes spill stores").value_or(0);
      usage.spillLoadBytes = numberBefore(next, "bytes spill loads").value_or(0);
      continue;
    }
    if (auto registers = numberBefore(line, "registers");
        registers && line.find("Used ") != std::string::npos) {
      usage.registers = *registers;
      usage.sharedMemoryBytes = numberBefore(line, "bytes smem").value_or(0);
      usage.barriers = numberBefore(line, "barriers").value_or(0);
      found = true;
    }
  }
  if (!found) return std::nullopt;
  return usage;
}

std::string withoutPtxasInfo(const std::string& log) {
  std::string kept;
  const std::vector<std::string> lines = linesOf(log);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (isPtxasInfo(lines[i])) {
      // "Function properties for X" is followed by one indented line.
      if (lines[i].find("Function properties for") != std::string::npos && i + 1 < lines.size() &&
          !lines[i + 1].empty() && lines[i + 1][0] == ' ') {
        ++i;
      }
      continue;
    }
    kept += lines[i];
    kept += '\n';
  }
  return kept.find_first_not_of(" \n") == std::string::npos ? std::string() : kept;
}

}  // namespace fuserlab::runtime
