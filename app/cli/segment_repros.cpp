#include "app/cli/segment_repros.h"

#include <filesystem>
#include <system_error>

#include "app/cli/output.h"
#include "core/ir/error.h"
#include "core/ir/parse_number.h"
#include "core/repro/segment_repro.h"

namespace fuserlab::cli {

bool wantsSegmentRepros(const CommandLine& cl, const LoadedScript& loaded) {
  const bool segment = cl.value("segment").has_value();
  const bool repro = cl.value("repro").has_value();
  const bool directory = cl.value("repro-dir").has_value();
  if (!segment && !repro && !directory) return false;
  FL_CHECK(!segment || repro, "--segment N needs --repro OUT.py (the file to write)");
  FL_CHECK(!repro || segment,
           "--repro OUT.py needs --segment N (which segment; "
           "--repro-dir DIR writes every segment)");
  FL_CHECK(loaded.inputs.has_value(), "segment repros need input sizes: ", loaded.script.fileName,
           " has no inputs block; pass --inputs");
  return true;
}

void writeSegmentRepros(const CommandLine& cl, const LoadedScript& loaded,
                        const runtime::CompiledFusion& compiled, std::ostream& text) {
  const size_t count = compiled.segmented->groups().size();
  const std::string origin = loaded.script.fileName + " (" + loaded.fusionName + ")";
  if (auto segmentText = cl.value("segment")) {
    auto segment = ir::tryParseInteger(*segmentText, 0, 1 << 20);
    FL_CHECK(segment.has_value(), "--segment takes a segment number, found '", *segmentText, "'");
    FL_CHECK(static_cast<size_t>(*segment) < count, "--segment ", *segment, ": the fusion has ",
             count, " segments (0 to ", count - 1, ")");
    const std::string path = *cl.value("repro");
    writeOutputFile(path, frontend::writeSegmentRepro(compiled, *segment, *loaded.inputs, origin));
    text << "segment " << *segment << " written to " << path << "\n";
  }
  if (auto directory = cl.value("repro-dir")) {
    std::error_code error;
    std::filesystem::create_directories(*directory, error);
    FL_CHECK(!error, "--repro-dir ", *directory, ": ", error.message());
    for (size_t segment = 0; segment < count; ++segment) {
      const std::string path =
          (std::filesystem::path(*directory) / ("segment_" + std::to_string(segment) + ".py"))
              .string();
      writeOutputFile(path, frontend::writeSegmentRepro(compiled, segment, *loaded.inputs, origin));
    }
    text << count << " segment scripts written to " << *directory << "\n";
  }
}

}  // namespace fuserlab::cli
