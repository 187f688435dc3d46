# Seed 004's ResidualAdd: only y is sharded; sharding propagation shards the
# residual x backward (each device reads its rows of x) instead of gathering
# y, so the add needs no communication. Written in nvFuser's direct form.
import torch
import nvfuser
from nvfuser import DataType, FusionDefinition

d = 2
mesh = nvfuser.DeviceMesh(range(d))

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[8, 6], contiguity=True, dtype=DataType.Float)
    y = fd.define_tensor(shape=[8, 6], contiguity=True, dtype=DataType.Float)
    z = fd.ops.relu(fd.ops.add(x, y))
    fd.add_output(z)

    x.set_device_mesh(mesh)
    y.set_device_mesh(mesh)
    y.outer_split(0, d)
    y.axis(0).parallelize(nvfuser.ParallelType.mesh_x)

inputs = [
    torch.randn(8, 6),
    torch.randn(8, 6),
]
outputs = fd.execute(inputs)
