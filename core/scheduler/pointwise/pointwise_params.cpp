#include "core/scheduler/pointwise/pointwise_params.h"

#include <sstream>

#include "core/scheduler/params_fields.h"

namespace fuserlab::scheduler {

std::string PointwiseParams::toString() const {
  std::ostringstream out;
  out << std::boolalpha;
  out << "===== Pointwise Parameters ========\n"
      << "Pointwise Characteristics:\n"
      << " BlckY: " << blockDimY << " BlckX: " << blockDimX << "\n";
  if (breakPoint != 0) {
    out << "2D Schedule\n  Bcast break point: " << breakPoint << "\n";
  } else {
    out << "1D Schedule\n";
  }
  out << "vectorization_factor: " << vectorizationFactor << "\n"
      << "unroll_factor_outer: " << unrollFactorOuter << "\n"
      << "unroll_factor_inner: " << unrollFactorInner << "\n";
  if (flipGrid) out << "Flip BIDx/BIDy bindings\n";
  out << "use_int32_indexing: " << useInt32Indexing << "\n"
      << "====================================\n";
  return out.str();
}

report::Json PointwiseParams::toJson() const {
  report::Json json = report::Json::object();
  json.set("schema_version", kSchemaVersion);
  json.set("vectorization_factor", vectorizationFactor);
  json.set("unroll_factor_inner", unrollFactorInner);
  json.set("unroll_factor_outer", unrollFactorOuter);
  json.set("break_point", breakPoint);
  json.set("block_dim_x", blockDimX);
  json.set("block_dim_y", blockDimY);
  json.set("flip_grid", flipGrid);
  json.set("use_int32_indexing", useInt32Indexing);
  return json;
}

PointwiseParams PointwiseParams::fromJson(const report::Json& json) {
  ParamsJsonReader reader(json, "pointwise params", kSchemaVersion);
  PointwiseParams params;
  params.vectorizationFactor = reader.readInt("vectorization_factor", 1);
  params.unrollFactorInner = reader.readInt("unroll_factor_inner", 1);
  params.unrollFactorOuter = reader.readInt("unroll_factor_outer", 1);
  params.breakPoint = reader.readInt("break_point", 0);
  params.blockDimX = reader.readInt("block_dim_x", 1);
  params.blockDimY = reader.readInt("block_dim_y", 1);
  params.flipGrid = reader.readBool("flip_grid");
  params.useInt32Indexing = reader.readBool("use_int32_indexing");
  reader.finish();
  return params;
}

uint64_t PointwiseParams::hash() const {
  return ParamsHasher("pointwise")
      .add(kSchemaVersion)
      .add(vectorizationFactor)
      .add(unrollFactorInner)
      .add(unrollFactorOuter)
      .add(breakPoint)
      .add(blockDimX)
      .add(blockDimY)
      .add(flipGrid)
      .add(useInt32Indexing)
      .value();
}

}  // namespace fuserlab::scheduler
