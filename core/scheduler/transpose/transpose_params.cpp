#include "core/scheduler/transpose/transpose_params.h"

#include <sstream>

#include "core/scheduler/params_fields.h"

namespace fuserlab::scheduler {

std::string TransposeParams::toString() const {
  std::ostringstream out;
  out << std::boolalpha;
  out << "===== Transpose Parameters ========\n"
      << "tile_size1: " << tileSize1 << " (group 1: the inputs' inner axis)\n"
      << "tile_size2: " << tileSize2 << " (group 2: the outputs' inner axis)\n"
      << "vectorization_factor1: " << vectorizationFactor1 << "\n"
      << "vectorization_factor2: " << vectorizationFactor2 << "\n"
      << "block_dim: " << blockDim << "\n"
      << "use_int32_indexing: " << useInt32Indexing << "\n"
      << "====================================\n";
  return out.str();
}

report::Json TransposeParams::toJson() const {
  report::Json json = report::Json::object();
  json.set("schema_version", kSchemaVersion);
  json.set("tile_size1", tileSize1);
  json.set("tile_size2", tileSize2);
  json.set("vectorization_factor1", vectorizationFactor1);
  json.set("vectorization_factor2", vectorizationFactor2);
  json.set("block_dim", blockDim);
  json.set("use_int32_indexing", useInt32Indexing);
  return json;
}

TransposeParams TransposeParams::fromJson(const report::Json& json) {
  ParamsJsonReader reader(json, "transpose params", kSchemaVersion);
  TransposeParams params;
  params.tileSize1 = reader.readInt("tile_size1", 1);
  params.tileSize2 = reader.readInt("tile_size2", 1);
  params.vectorizationFactor1 = reader.readInt("vectorization_factor1", 1);
  params.vectorizationFactor2 = reader.readInt("vectorization_factor2", 1);
  params.blockDim = reader.readInt("block_dim", 1);
  params.useInt32Indexing = reader.readBool("use_int32_indexing");
  reader.finish();
  return params;
}

uint64_t TransposeParams::hash() const {
  return ParamsHasher("transpose")
      .add(kSchemaVersion)
      .add(tileSize1)
      .add(tileSize2)
      .add(vectorizationFactor1)
      .add(vectorizationFactor2)
      .add(blockDim)
      .add(useInt32Indexing)
      .value();
}

}  // namespace fuserlab::scheduler
