// readScript: parses a repro script and runs its Python through the
// interpreter (interpreter.h), which collects the fusions it builds and the
// inputs they run with. Nothing here runs Python.
#include "core/frontend/interpreter.h"
#include "core/frontend/parser.h"
#include "core/frontend/script.h"
#include "core/ir/bounded_file.h"

namespace fuserlab::frontend {

Script readScript(std::string_view source, const std::string& fileName) {
  // The same bound for a script pasted or typed into the workbench.
  FL_CHECK(source.size() <= ir::kMaxScriptBytes, fileName, ": the script holds ",
           ir::describeBytes(source.size()), ", more than the ",
           ir::describeBytes(ir::kMaxScriptBytes), " FuserLab reads");
  Module module = parseScript(source, fileName);
  return interpretScript(module, source, fileName);
}

Script readScriptFile(const std::string& path) {
  // Only a regular file of at most kMaxScriptBytes: a named pipe, a device
  // or a directory is refused before anything is read (bounded_file.h).
  const std::string text = ir::readUserFile(path, "script", ir::kMaxScriptBytes);
  return readScript(text, path);
}

}  // namespace fuserlab::frontend
