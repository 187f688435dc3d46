// DeviceMesh, the DID parallel type names, and how a mesh prints and clones.
#include <gtest/gtest.h>

#include "core/ir/cloner.h"
#include "core/ir/device_mesh.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ir/printer.h"

namespace fuserlab::ir {
namespace {

TEST(DeviceMeshTest, ForCountListsDevicesInOrder) {
  DeviceMesh mesh = DeviceMesh::forCount(4);
  EXPECT_EQ(mesh.devices(), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(mesh.size(), 4);
  EXPECT_EQ(mesh.indexOf(2), 2);
  EXPECT_EQ(mesh.indexOf(7), -1);
  EXPECT_EQ(mesh.toString(), "mesh{0 1 2 3}");
}

TEST(DeviceMeshTest, RejectsDuplicateAndNegativeDevices) {
  EXPECT_THROW(DeviceMesh({0, 1, 1}), UserError);
  EXPECT_THROW(DeviceMesh({-1}), UserError);
  EXPECT_THROW(DeviceMesh::forCount(0), UserError);
}

TEST(DeviceMeshTest, MeshXIsDidx) {
  EXPECT_EQ(parallelTypeFromName("mesh_x"), ParallelType::DIDx);
  EXPECT_EQ(parallelTypeFromName("DIDx"), ParallelType::DIDx);
  EXPECT_EQ(parallelTypeFromName("mesh_y"), ParallelType::DIDy);
  EXPECT_FALSE(parallelTypeFromName("mesh_w").has_value());
}

TEST(DeviceMeshTest, PrinterShowsMeshesAndCloneKeepsThem) {
  Fusion fusion;
  Scalar* e = fusion.newScalar(DataType::Int);
  TensorView* tv =
      fusion.newTensorView({fusion.newIterDomain(e, IterType::Iteration)}, DataType::Float);
  fusion.addInput(tv);
  fusion.addOutput(tv);
  tv->setDeviceMesh(DeviceMesh::forCount(2));
  tv->split(0, fusion.constInt(2), /*innerSplit=*/false);
  tv->loop()[0]->parallelize(ParallelType::DIDx);
  const std::string printed = printFusionIr(fusion);
  EXPECT_NE(printed.find("contiguity [True], mesh{0 1}"), std::string::npos) << printed;
  EXPECT_NE(printed.find("loop: [iDIDx"), std::string::npos) << printed;
  auto clone = cloneFusion(fusion);
  EXPECT_EQ(printFusionIr(*clone), printed);
  EXPECT_EQ(clone->inputs()[0]->as<TensorView>()->deviceMesh(), DeviceMesh::forCount(2));
}

}  // namespace
}  // namespace fuserlab::ir
