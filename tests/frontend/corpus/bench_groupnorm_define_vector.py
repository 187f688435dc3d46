# Style C (benchmark builder, as nvFuser's groupnorm benchmark writes it): shapes from
# define_vector of input sizes and scalar divisions, x reshaped to [N, G, C/G, H, W],
# weight and bias reshaped to [1, G, C/G, 1, 1] and broadcast, the result reshaped back
# to x's shape. BFloat16, 8 groups.
import torch
from nvfuser import FusionDefinition, DataType

def gn(fd: FusionDefinition) -> None:
    x = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    w = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    b = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    shape0 = x.shape()
    groups = fd.define_scalar(8, dtype=DataType.Int)
    per = fd.ops.div(x.size(1), groups)
    xg = fd.ops.reshape(x, new_shape=fd.define_vector([x.size(0), 8, per, x.size(2), x.size(3)], dtype=DataType.Int))
    xf = fd.ops.cast(xg, dtype=DataType.Float)
    wf = fd.ops.cast(w, dtype=DataType.Float)
    bf = fd.ops.cast(b, dtype=DataType.Float)
    var, mean = fd.ops.var_mean(xf, dims=[2, 3, 4], correction=0, keepdim=False)
    small = fd.define_vector([x.size(0), 8, 1, 1, 1], dtype=DataType.Int)
    v = fd.ops.broadcast_in_dim(var, shape=small, broadcast_dims=[0, 1])
    m = fd.ops.broadcast_in_dim(mean, shape=small, broadcast_dims=[0, 1])
    r = fd.ops.rsqrt(fd.ops.add(v, 1e-5))
    full = xf.shape()
    y = fd.ops.mul(fd.ops.sub(xf, fd.ops.broadcast_in_dim(m, shape=full, broadcast_dims=[0, 1, 2, 3, 4])), fd.ops.broadcast_in_dim(r, shape=full, broadcast_dims=[0, 1, 2, 3, 4]))
    wg = fd.ops.reshape(wf, new_shape=fd.define_vector([1, 8, fd.ops.div(w.size(0), groups), 1, 1], dtype=DataType.Int))
    bg = fd.ops.reshape(bf, new_shape=fd.define_vector([1, 8, fd.ops.div(b.size(0), groups), 1, 1], dtype=DataType.Int))
    y = fd.ops.add(fd.ops.mul(y, fd.ops.broadcast_in_dim(wg, shape=full, broadcast_dims=[0, 1, 2, 3, 4])), fd.ops.broadcast_in_dim(bg, shape=full, broadcast_dims=[0, 1, 2, 3, 4]))
    y = fd.ops.reshape(fd.ops.cast(y, dtype=DataType.BFloat16), new_shape=shape0)
    fd.add_output(y)

with FusionDefinition() as fd:
    gn(fd)

inputs = [
    torch.randn(4, 64, 28, 28, dtype=torch.bfloat16, device="cuda"),
    torch.randn(64, dtype=torch.bfloat16, device="cuda"),
    torch.randn(64, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
