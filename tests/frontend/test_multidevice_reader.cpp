// The multi-device forms of nvFuser's Python frontend: FusionDefinition
// subclasses with multidevice_schedule (the fd.sched spelling) and the direct
// spelling (T.set_device_mesh, T.outer_split, T.axis(i).parallelize), read
// into meshes and DID loop splits; unsupported forms are UserErrors.
#include <gtest/gtest.h>

#include <string>

#include "core/frontend/script.h"
#include "core/ir/error.h"
#include "core/ir/fusion.h"
#include "core/ir/iter_domain.h"

namespace fuserlab::frontend {
namespace {

using ir::ParallelType;
using ir::TensorView;

TensorView* named(const ir::Fusion& fusion, const std::string& name) {
  for (const auto& val : fusion.vals()) {
    if (val->scriptName() == name) return val->as<TensorView>();
  }
  ADD_FAILURE() << "no tensor named " << name;
  return nullptr;
}

// Loop axes as "DIDx{2}" / "S" strings, to compare in one line.
std::string loopOf(const TensorView* tv) {
  std::string out;
  for (const ir::IterDomain* id : tv->loop()) {
    if (!out.empty()) out += " ";
    out += std::string(ir::toString(id->parallelType()));
    if (auto e = id->extent()->constInt()) out += "{" + std::to_string(*e) + "}";
  }
  return out;
}

void expectError(const std::string& source, const std::string& fragment, int line) {
  try {
    readScript(source, "md.py");
    ADD_FAILURE() << "no error for:\n" << source;
  } catch (const UserError& error) {
    EXPECT_NE(error.message().find(fragment), std::string::npos) << error.message();
    ASSERT_TRUE(error.location().has_value()) << error.message();
    EXPECT_EQ(error.location()->line, line) << error.what();
  }
}

constexpr const char* kPointwiseClass = R"(import nvfuser
from nvfuser import DataType, FusionDefinition

num_devices = 2

class Model(FusionDefinition):
    def definition(self):
        self.t0 = self.define_tensor((-1, -1), contiguity=(False, False), dtype=DataType.Float)
        self.t1 = self.ops.relu(self.t0)
        self.t2 = self.ops.add(self.t1, self.t1)
        self.add_output(self.t2)

    def multidevice_schedule(self):
        mesh = self.sched._create_device_mesh(range(num_devices))
        self.sched._set_device_mesh(self.t0, mesh)
        self.sched._set_device_mesh(self.t1, mesh)
        self.sched._set_device_mesh(self.t2, mesh)
        self.sched.parallelize(self.t0, 0, nvfuser.ParallelType.mesh_x)

fn = Model()
outputs = fn.execute(inputs)
)";

TEST(MultideviceReaderTest, SubclassWithMultideviceScheduleSetsMeshAndDid) {
  Script script = readScript(kPointwiseClass, "md.py");
  ASSERT_EQ(script.definitions.size(), 1u);
  EXPECT_EQ(script.definitions[0].functionName, "Model");
  const ir::Fusion& fusion = script.fusion();
  TensorView* t0 = named(fusion, "t0");
  ASSERT_NE(t0, nullptr);
  EXPECT_EQ(t0->deviceMesh(), ir::DeviceMesh::forCount(2));
  EXPECT_EQ(named(fusion, "t2")->deviceMesh(), ir::DeviceMesh::forCount(2));
  EXPECT_EQ(loopOf(t0), "DIDx S");
  EXPECT_EQ(loopOf(named(fusion, "t1")), "S S");
}

constexpr const char* kLinearClass = R"(import nvfuser
from nvfuser import DataType, FusionDefinition

class Mlp(FusionDefinition):
    def __init__(self, num_devices, hidden=8):
        super().__init__()
        self._num_devices = num_devices
        self._hidden = hidden

    def definition(self):
        d, e = self._num_devices, self._hidden
        self.inp = self.define_tensor([2, e], contiguity=True, dtype=DataType.Float)
        self.w0 = self.define_tensor([4 * e, e], contiguity=True, dtype=DataType.Float)
        self.w1 = self.define_tensor([e, 4 * e], contiguity=True, dtype=DataType.Float)
        self.out = self.ops.linear(self.ops.linear(self.inp, self.w0), self.w1)
        self.add_output(self.out)

    def multidevice_schedule(self):
        d = self._num_devices
        mesh = nvfuser.DeviceMesh(range(d))
        for t in [self.inp, self.w0, self.w1]:
            self.sched._set_device_mesh(t, mesh)
        self.sched.split(self.w0, 0, d, False)
        self.sched.parallelize(self.w0, 0, nvfuser.ParallelType.mesh_x)
        self.sched.split(self.w1, -1, d, False)
        self.sched.parallelize(self.w1, -2, nvfuser.ParallelType.mesh_x)

fd = Mlp(4)
)";

TEST(MultideviceReaderTest, InitArgumentsAndLoopsReachTheSchedule) {
  Script script = readScript(kLinearClass, "md.py");
  const ir::Fusion& fusion = script.fusion();
  EXPECT_EQ(loopOf(named(fusion, "w0")), "DIDx{4} S{8} S{8}");
  EXPECT_EQ(loopOf(named(fusion, "w1")), "S{8} DIDx{4} S{8}");
  EXPECT_EQ(named(fusion, "inp")->deviceMesh().size(), 4);
  EXPECT_FALSE(named(fusion, "out")->hasDeviceMesh());
}

constexpr const char* kDirect = R"(import torch
import nvfuser
from nvfuser import DataType, FusionDefinition

d = 2
mesh = nvfuser.multidevice.DeviceMesh(torch.arange(d))

with FusionDefinition() as fd:
    x = fd.define_tensor((4, 6), contiguity=True, dtype=DataType.Half)
    y = fd.define_tensor((4, 6), contiguity=True, dtype=DataType.Half)
    z = fd.ops.add(x, y)
    fd.add_output(z)
    for t in fd.fusion.inputs():
        t.set_device_mesh(mesh)
    y.outer_split(0, d)
    y.axis(0).parallelize(nvfuser.ParallelType.mesh_x)
    x.split(1, d, inner_split=False)
)";

TEST(MultideviceReaderTest, DirectSpellingShardsTensors) {
  Script script = readScript(kDirect, "md.py");
  const ir::Fusion& fusion = script.fusion();
  EXPECT_EQ(named(fusion, "x")->deviceMesh(), ir::DeviceMesh::forCount(2));
  EXPECT_EQ(loopOf(named(fusion, "y")), "DIDx{2} S{2} S{6}");
  EXPECT_EQ(loopOf(named(fusion, "x")), "S{4} S{2} S{3}");
}

TEST(MultideviceReaderTest, UnsupportedFormsAreUserErrors) {
  const std::string head =
      "import nvfuser\nfrom nvfuser import DataType, FusionDefinition\n"
      "with FusionDefinition() as fd:\n"
      "    x = fd.define_tensor((4, 6), dtype=DataType.Float)\n";
  expectError(head + "    x.axis(0).parallelize(nvfuser.ParallelType.mesh_w)\n",
              "ParallelType.mesh_w is not a parallel type", 5);
  expectError(head + "    x.axis(0).parallelize(nvfuser.ParallelType.TIDx)\n",
              "only device parallel types", 5);
  expectError(head + "    x.merge(0)\n", "merge is not supported", 5);
  expectError(head + "    fd.sched.reorder(x, [1, 0])\n", "fd.sched.reorder is not supported", 5);
  expectError(head + "    x.set_device_mesh(nvfuser.DeviceMesh([0, 0]))\n",
              "appears more than once", 5);
  expectError(head + "    x.outer_split(2, 2)\n", "out of range", 5);
  expectError("class A:\n    def definition(self):\n        pass\n",
              "only subclasses of FusionDefinition", 1);
  expectError(
      "from nvfuser import FusionDefinition\n"
      "class A(FusionDefinition):\n    def other(self):\n        pass\n",
      "needs a method 'def definition(self)'", 2);
}

}  // namespace
}  // namespace fuserlab::frontend
