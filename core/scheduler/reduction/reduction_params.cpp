#include "core/scheduler/reduction/reduction_params.h"

#include <sstream>

#include "core/scheduler/params_fields.h"

namespace fuserlab::scheduler {

std::string_view toString(PersistentStorage storage) {
  switch (storage) {
    case PersistentStorage::Registers: return "registers";
    case PersistentStorage::SharedMemory: return "shared_memory";
    case PersistentStorage::Reload: return "reload";
  }
  return "registers";
}

std::string ReductionParams::toString() const {
  std::ostringstream out;
  out << std::boolalpha;
  out << "===== Reduction Parameters ========\n"
      << (fastestDimReduction ? "Red On Fastest Dim\n" : "Red On Slow Dim\n");
  if (persistentKernel) {
    out << "Persistent Kernel (buffers in " << scheduler::toString(persistentStorage) << ")\n";
    if (projectPersistentBuffers) out << "Project Persistent Buffers\n";
  }
  out << "Reduction Domain:" << (crossBlockReduction ? " cross block" : "")
      << (crossGridReduction ? " cross grid" : "") << (clusterReduction ? " (cluster)" : "")
      << " vectorize " << vectorizationFactor << " unroll " << unrollFactorReduction;
  if (persistentKernel) out << " persistent batch " << persistentBatchSize;
  out << "\nIteration Domain: unroll " << unrollFactorIteration << "\n"
      << "Launch Parameters: BlockDim.x = " << blockDimX << ", BlockDim.y = " << blockDimY
      << ", GridDim.x = " << gridDimX << ", GridDim.y = " << gridDimY << "\n";
  const report::Json fields = toJson();
  for (const auto& [key, value] : fields.members()) {
    if (key == "schema_version") continue;
    out << key << ": " << (value.isString() ? value.asString() : value.dump(-1)) << "\n";
  }
  out << "====================================\n";
  return out.str();
}

report::Json ReductionParams::toJson() const {
  report::Json json = report::Json::object();
  json.set("schema_version", kSchemaVersion);
  json.set("fastest_dim_reduction", fastestDimReduction);
  json.set("persistent_kernel", persistentKernel);
  json.set("project_persistent_buffers", projectPersistentBuffers);
  json.set("persistent_storage", std::string(scheduler::toString(persistentStorage)));
  json.set("vectorization_factor", vectorizationFactor);
  json.set("persistent_batch_size", persistentBatchSize);
  json.set("unroll_factor_reduction", unrollFactorReduction);
  json.set("unroll_factor_iteration", unrollFactorIteration);
  json.set("block_dim_x", blockDimX);
  json.set("block_dim_y", blockDimY);
  json.set("grid_dim_x", gridDimX);
  json.set("grid_dim_y", gridDimY);
  json.set("cross_block_reduction", crossBlockReduction);
  json.set("cross_grid_reduction", crossGridReduction);
  json.set("cluster_reduction", clusterReduction);
  json.set("register_cap", registerCap);
  json.set("use_int32_indexing", useInt32Indexing);
  return json;
}

ReductionParams ReductionParams::fromJson(const report::Json& json) {
  ParamsJsonReader reader(json, "reduction params", kSchemaVersion);
  ReductionParams params;
  params.fastestDimReduction = reader.readBool("fastest_dim_reduction");
  params.persistentKernel = reader.readBool("persistent_kernel");
  params.projectPersistentBuffers = reader.readBool("project_persistent_buffers");
  const std::string storage =
      reader.readString("persistent_storage", {"registers", "shared_memory", "reload"});
  for (PersistentStorage s :
       {PersistentStorage::Registers, PersistentStorage::SharedMemory, PersistentStorage::Reload}) {
    if (storage == scheduler::toString(s)) params.persistentStorage = s;
  }
  params.vectorizationFactor = reader.readInt("vectorization_factor", 1);
  params.persistentBatchSize = reader.readInt("persistent_batch_size", 1);
  params.unrollFactorReduction = reader.readInt("unroll_factor_reduction", 1);
  params.unrollFactorIteration = reader.readInt("unroll_factor_iteration", 1);
  params.blockDimX = reader.readInt("block_dim_x", 1);
  params.blockDimY = reader.readInt("block_dim_y", 1);
  params.gridDimX = reader.readInt("grid_dim_x", 1);
  params.gridDimY = reader.readInt("grid_dim_y", 1);
  params.crossBlockReduction = reader.readBool("cross_block_reduction");
  params.crossGridReduction = reader.readBool("cross_grid_reduction");
  params.clusterReduction = reader.readOptionalBool("cluster_reduction", false);
  params.registerCap = reader.readInt("register_cap", 0);
  params.useInt32Indexing = reader.readBool("use_int32_indexing");
  reader.finish();
  return params;
}

uint64_t ReductionParams::hash() const {
  ParamsHasher hasher("reduction");
  // Added after schema version 1: params without it keep their hash.
  if (clusterReduction) hasher.add(int64_t{0x636c7573});
  return hasher.add(kSchemaVersion)
      .add(fastestDimReduction)
      .add(persistentKernel)
      .add(projectPersistentBuffers)
      .add(static_cast<int64_t>(persistentStorage))
      .add(vectorizationFactor)
      .add(persistentBatchSize)
      .add(unrollFactorReduction)
      .add(unrollFactorIteration)
      .add(blockDimX)
      .add(blockDimY)
      .add(gridDimX)
      .add(gridDimY)
      .add(crossBlockReduction)
      .add(crossGridReduction)
      .add(registerCap)
      .add(useInt32Indexing)
      .value();
}

}  // namespace fuserlab::scheduler
