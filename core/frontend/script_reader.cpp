// readScript: parses a repro script and runs its Python through the
// interpreter (interpreter.h), which collects the fusions it builds and the
// inputs they run with. Nothing here runs Python.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/frontend/interpreter.h"
#include "core/frontend/parser.h"
#include "core/frontend/script.h"

namespace fuserlab::frontend {

Script readScript(std::string_view source, const std::string& fileName) {
  Module module = parseScript(source, fileName);
  return interpretScript(module, source, fileName);
}

Script readScriptFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw UserError("cannot read the script '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UserError("cannot open the script '" + path +
                    "': no such file or not readable");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UserError("cannot read the script '" + path + "'");
  return readScript(text.str(), path);
}

}  // namespace fuserlab::frontend
