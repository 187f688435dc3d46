#include "app/cli/tensor_files.h"

#include <filesystem>

#include "core/ir/error.h"
#include "core/ir/output_file.h"
#include "core/report/json.h"
#include "core/tensor/npy.h"

namespace fuserlab::cli {
namespace {

report::Json scalarJson(const ir::ScalarValue& value) {
  if (const auto* b = std::get_if<bool>(&value)) return report::Json(*b);
  if (const auto* i = std::get_if<int64_t>(&value)) return report::Json(*i);
  if (const auto* d = std::get_if<double>(&value)) return report::Json(*d);
  return report::Json();
}

}  // namespace

void saveTensors(const std::string& directory, const std::vector<NamedValue>& values) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  FL_CHECK(!ec, "cannot create directory '", directory, "': ", ec.message());
  report::Json manifest = report::Json::array();
  for (const NamedValue& v : values) {
    report::Json entry = report::Json::object();
    entry.set("name", v.name);
    if (const auto* tensor = std::get_if<runtime::Tensor>(&v.value)) {
      const std::string file = v.fileStem + ".npy";
      runtime::writeNpy((std::filesystem::path(directory) / file).string(), *tensor);
      entry.set("file", file);
      entry.set("dtype", std::string(ir::shortName(tensor->dtype())));
      entry.set("saved_as", ir::isReducedPrecision(tensor->dtype())
                                ? "f32"
                                : std::string(ir::shortName(tensor->dtype())));
      entry.set("shape", report::Json::arrayOf(tensor->sizes()));
      entry.set("strides", report::Json::arrayOf(tensor->strides()));
    } else {
      entry.set("scalar", scalarJson(std::get<ir::ScalarValue>(v.value)));
    }
    manifest.push(std::move(entry));
  }
  const auto path = std::filesystem::path(directory) / "manifest.json";
  ir::writeUserFile(path.string(), manifest.dump() + "\n");
}

}  // namespace fuserlab::cli
