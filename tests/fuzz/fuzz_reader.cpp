// libFuzzer entry point for the whole script reader: parsing, building the
// Fusion through the op builders, and the inputs block. Any input may be
// rejected with a UserError; nothing may crash, hang, leak, hit an internal
// assertion or throw anything else. A script that reads must also write back
// to a script that reads to the same IR.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/frontend/script.h"
#include "core/ir/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fuserlab;
  std::string_view source(reinterpret_cast<const char*>(data), size);
  frontend::Script script;
  try {
    script = frontend::readScript(source, "fuzz.py");
  } catch (const UserError&) {
    return 0;
  }
  for (const auto& definition : script.definitions) {
    std::string written;
    try {
      written = frontend::writeScript(*definition.fusion, "f");
    } catch (const UserError&) {
      continue;  // e.g. allocation domains the dialect cannot express
    }
    try {
      frontend::Script again = frontend::readScript(written, "written.py");
      if (ir::printFusionIr(again.fusion()) != ir::printFusionIr(*definition.fusion)) {
        std::fprintf(stderr, "write/read round trip changed the IR:\n%s\n", written.c_str());
        std::abort();
      }
    } catch (const UserError& error) {
      std::fprintf(stderr, "written script does not read: %s\n%s\n", error.what(), written.c_str());
      std::abort();
    }
  }
  return 0;
}
