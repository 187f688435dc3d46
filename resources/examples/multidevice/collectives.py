# Every collective FuserLab's communication segments run, in one fusion:
# a one-device bias is broadcast to the mesh; a linear whose input and
# weight are both sharded on the contraction axis gives partial sums, which a
# reduce-scatter completes and shards on rows; an allgather then gives every
# device the whole result. Run: fuserlab-cli run FILE --ranks 2 --check
import torch
import nvfuser
from nvfuser import DataType, FusionDefinition

d = 2

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[8, 16], contiguity=True, dtype=DataType.Float)
    w = fd.define_tensor(shape=[12, 16], contiguity=True, dtype=DataType.Float)
    bias = fd.define_tensor(shape=[12], contiguity=True, dtype=DataType.Float)
    partial = fd.ops.linear(x, w)
    rows = fd.ops.set(partial)
    shared_bias = fd.ops.set(bias)
    biased = fd.ops.add(rows, fd.ops.broadcast(shared_bias, [True, False]))
    whole = fd.ops.set(biased)
    fd.add_output(biased)
    fd.add_output(whole)

    mesh = nvfuser.DeviceMesh(range(d))
    for t in [x, w, rows, shared_bias, whole]:
        t.set_device_mesh(mesh)
    bias.set_device_mesh(nvfuser.DeviceMesh([0]))
    x.outer_split(1, d)
    x.axis(1).parallelize(nvfuser.ParallelType.mesh_x)
    w.outer_split(1, d)
    w.axis(1).parallelize(nvfuser.ParallelType.mesh_x)
    rows.outer_split(0, d)
    rows.axis(0).parallelize(nvfuser.ParallelType.mesh_x)

inputs = [
    torch.randn(8, 16),
    torch.randn(12, 16),
    torch.randn(12),
]
