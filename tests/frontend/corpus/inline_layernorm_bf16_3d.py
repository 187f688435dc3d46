# Style E (inline with-block): LayerNorm over the last dim of a bf16
# [2, 10, 96] written inline, var_mean with keepdim=True used without
# broadcast_in_dim, weight/bias via broadcast_in_dim(..., broadcast_dims=[2]).
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    w = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    b = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    xf = fd.ops.cast(x, dtype=DataType.Float)
    var, mean = fd.ops.var_mean(xf, dims=[2], correction=0, keepdim=True)
    rstd = fd.ops.rsqrt(fd.ops.add(var, 1e-5))
    y = fd.ops.mul(fd.ops.sub(xf, mean), rstd)
    wb = fd.ops.broadcast_in_dim(fd.ops.cast(w, dtype=DataType.Float), shape=[2, 10, 96], broadcast_dims=[2])
    bb = fd.ops.broadcast_in_dim(fd.ops.cast(b, dtype=DataType.Float), shape=[2, 10, 96], broadcast_dims=[2])
    y = fd.ops.add(fd.ops.mul(y, wb), bb)
    fd.add_output(fd.ops.cast(y, dtype=DataType.BFloat16))

inputs = [
    torch.randn(2, 10, 96, device="cuda", dtype=torch.bfloat16),
    torch.randn(96, device="cuda", dtype=torch.bfloat16),
    torch.randn(96, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
