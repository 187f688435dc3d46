#include "core/scheduler/matmul/matmul_params.h"

#include <charconv>
#include <sstream>

#include "core/ir/error.h"
#include "core/scheduler/params_fields.h"

namespace fuserlab::scheduler {

int heuristicIndex(const std::string& algo) {
  if (algo == "heuristic") return 0;
  constexpr std::string_view kPrefix = "heuristic:";
  if (algo.rfind(kPrefix, 0) != 0) return -1;
  int index = -1;
  const char* begin = algo.data() + kPrefix.size();
  const char* end = algo.data() + algo.size();
  auto [ptr, ec] = std::from_chars(begin, end, index);
  if (ec != std::errc() || ptr != end || index < 0 || begin == end) return -1;
  return index;
}

std::string MatmulParams::toString() const {
  std::ostringstream out;
  out << "===== Matmul Parameters ========\n"
      << "backend: " << backend << "\n"
      << "epilogue: " << epilogue << "\n"
      << "output_dtype: " << outputDtype << "\n"
      << "algo: " << algo << "\n"
      << "================================\n";
  return out.str();
}

report::Json MatmulParams::toJson() const {
  report::Json json = report::Json::object();
  json.set("schema_version", kSchemaVersion);
  json.set("backend", backend);
  json.set("epilogue", epilogue);
  json.set("output_dtype", outputDtype);
  json.set("algo", algo);
  return json;
}

MatmulParams MatmulParams::fromJson(const report::Json& json) {
  ParamsJsonReader reader(json, "matmul params", kSchemaVersion);
  MatmulParams params;
  params.backend = reader.readString("backend", {"cublaslt", "attention_kernel"});
  params.epilogue =
      reader.readString("epilogue", {"none", "BIAS", "RELU", "RELU_BIAS", "GELU", "GELU_BIAS"});
  params.outputDtype = reader.readString("output_dtype", {"BFloat16", "Half", "Float", "Double"});
  const report::Json* algo = json.get("algo");
  FL_CHECK(algo != nullptr && algo->isString(),
           "matmul params: field \"algo\" must be \"heuristic\" or \"heuristic:N\"");
  params.algo = algo->asString();
  FL_CHECK(heuristicIndex(params.algo) >= 0, "matmul params: field \"algo\" must be ",
           "\"heuristic\" or \"heuristic:N\", found \"", params.algo, "\"");
  reader.readString("algo", {params.algo});
  reader.finish();
  return params;
}

uint64_t MatmulParams::hash() const {
  ParamsHasher hasher("matmul");
  hasher.add(kSchemaVersion);
  for (const std::string* field : {&backend, &epilogue, &outputDtype, &algo}) {
    for (char c : *field) hasher.add(static_cast<unsigned char>(c));
    hasher.add(-1);
  }
  return hasher.value();
}

}  // namespace fuserlab::scheduler
