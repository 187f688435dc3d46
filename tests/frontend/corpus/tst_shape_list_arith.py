# Style D (test style): list arithmetic on shapes - `shape[:2] + [n]`,
# `bshape = list(shape)` then `bshape[dim] = 1`, broadcast_in_dim with a
# computed broadcast_dims list. Float [3, 5, 16] times a [3, 5] row scale.
import torch
from nvfuser_direct import FusionDefinition, DataType

shape = [3, 5, 16]
inputs = [
    torch.randn(shape, device="cuda"),
    torch.randn(shape[:2], device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    n = shape[-1]
    x = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float)
    s = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    out_shape = shape[:2] + [n]
    kept = [d for d in range(len(out_shape)) if d != len(out_shape) - 1]
    sb = fd.ops.broadcast_in_dim(s, shape=out_shape, broadcast_dims=kept)
    y = fd.ops.mul(x, sb)
    dim = 2
    bshape = list(shape)
    bshape[dim] = 1
    m = fd.ops.broadcast_in_dim(fd.ops.sum(y, dims=[dim]), shape=bshape, broadcast_dims=[0, 1])
    fd.add_output(fd.ops.sub(y, m))


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
