# Seed 004's follow-up: a reshape that splits the sharded axis. The input's
# last axis (heads * head_dim) is sharded; the reshape to [b, s, heads,
# head_dim] keeps the sharding on heads, the per-head work stays local, and
# the reshape back merges heads (sharded, outermost) into the last axis again.
import torch
import nvfuser
from nvfuser import DataType, FusionDefinition

d = 2
b, s, h, e = 2, 3, 4, 5


def sharded_heads(fd: FusionDefinition) -> None:
    x = fd.define_tensor(shape=[b, s, h * e], contiguity=True, dtype=DataType.Float)
    heads = fd.ops.reshape(x, [b, s, h, e])
    scaled = fd.ops.mul(fd.ops.exp(heads), 0.5)
    y = fd.ops.reshape(scaled, [b, s, h * e])
    fd.add_output(y)
    mesh = nvfuser.DeviceMesh(range(d))
    x.set_device_mesh(mesh)
    x.outer_split(2, d)
    x.axis(2).parallelize(nvfuser.ParallelType.mesh_x)


with FusionDefinition() as fd:
    sharded_heads(fd)

inputs = [
    torch.randn(2, 3, 20),
]
outputs = fd.execute(inputs)
