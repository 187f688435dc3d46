// libFuzzer entry point for the script parser: any input may be rejected with
// a UserError, but nothing may crash, hang, leak or throw anything else.
// Accepted input must also survive a round trip: the tree printed back as
// Python parses to the same printed tree.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/frontend/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using fuserlab::frontend::parseScript;
  std::string_view source(reinterpret_cast<const char*>(data), size);
  std::string printed;
  try {
    printed = toString(parseScript(source, "fuzz.py"));
  } catch (const fuserlab::UserError&) {
    return 0;
  }
  try {
    std::string reprinted = toString(parseScript(printed, "printed.py"));
    if (reprinted != printed) {
      std::fprintf(stderr, "round trip changed the tree:\n%s\n---\n%s\n", printed.c_str(),
                   reprinted.c_str());
      std::abort();
    }
  } catch (const fuserlab::UserError& error) {
    // Printing adds parentheses, so a tree at the nesting limit may exceed it
    // when read back; any other complaint means the printer wrote bad Python.
    if (std::string_view(error.message()).find("nest") == std::string_view::npos) {
      std::fprintf(stderr, "printed tree does not parse: %s\n%s\n", error.what(), printed.c_str());
      std::abort();
    }
  }
  return 0;
}
