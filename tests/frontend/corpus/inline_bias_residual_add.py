# Style E (inline with-block): bias + residual add on bf16 [6, 20, 32], with
# a [32] bias broadcast via broadcast_in_dim and an extra scalar fusion input
# (define_scalar(None, dtype=DataType.Double)) for the residual scale.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    bias = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    res = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    alpha = fd.define_scalar(None, dtype=DataType.Double)
    xb = fd.ops.add(fd.ops.cast(x, dtype=DataType.Float), fd.ops.broadcast_in_dim(fd.ops.cast(bias, dtype=DataType.Float), shape=[6, 20, 32], broadcast_dims=[2]))
    out = fd.ops.add(xb, fd.ops.mul(fd.ops.cast(res, dtype=DataType.Float), alpha))
    fd.add_output(fd.ops.cast(out, dtype=DataType.BFloat16))

inputs = [
    torch.randn(6, 20, 32, device="cuda", dtype=torch.bfloat16),
    torch.randn(32, device="cuda", dtype=torch.bfloat16),
    torch.randn(6, 20, 32, device="cuda", dtype=torch.bfloat16),
    0.7,
]
fd.execute(inputs)
