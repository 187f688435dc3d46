# Style E (inline with-block): scalar arithmetic in the fusion - products of
# t.size(i) via fd.ops.mul, cast of an Int scalar to Double, reciprocal of a
# scalar, and a mean computed as sum * (1 / numel). Float [7, 9, 11].
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    n01 = fd.ops.mul(t.size(0), t.size(1))
    numel = fd.ops.mul(n01, t.size(2))
    inv = fd.ops.reciprocal(fd.ops.cast(numel, dtype=DataType.Double))
    total = fd.ops.sum(t, dims=[0, 1, 2])
    mean = fd.ops.mul(total, inv)
    centered = fd.ops.sub(t, mean)
    fd.add_output(mean)
    fd.add_output(centered)

inputs = [torch.randn(7, 9, 11, device="cuda")]
fd.execute(inputs)
