# Style C (benchmark builder): norm_fwd_fusion(fd, dtype, norm, num_dims,
# channels_last, eps=1e-5) - list comprehensions with `True if i != c else
# False`, `reduction_axes.remove(batch_dim)`, `if norm == "instance_norm":`.
import torch
from nvfuser_direct import FusionDefinition, DataType

PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def norm_fwd_fusion(fd: FusionDefinition, dtype: DataType, norm: str, num_dims: int, channels_last: bool, eps: float = 1e-5) -> None:
    batch_dim = 0
    channel_dim = 1 if not channels_last else num_dims - 1
    bcast_mask = [True if i != channel_dim else False for i in range(num_dims)]
    channels_only_bcast_mask = [True if i != channel_dim else False for i in range(num_dims)]
    reduction_axes = [i for i in range(num_dims) if i != channel_dim]
    if norm == "instance_norm":
        reduction_axes.remove(batch_dim)
        bcast_mask[batch_dim] = False
    input = fd.define_tensor(shape=[-1] * num_dims, contiguity=[True] * num_dims, dtype=dtype, is_cpu=False)
    weight = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    bias = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    if dtype in PROMOTE_DTYPES:
        input = fd.ops.cast(input, dtype=DataType.Float)
        weight = fd.ops.cast(weight, dtype=DataType.Float)
        bias = fd.ops.cast(bias, dtype=DataType.Float)
    var, mean = fd.ops.var_mean(input, dims=reduction_axes, correction=0, keepdim=False)
    invstd = fd.ops.rsqrt(fd.ops.add(var, fd.define_scalar(eps, dtype=DataType.Double)))
    x_norm = fd.ops.mul(fd.ops.sub(input, fd.ops.broadcast(mean, bcast_mask)), fd.ops.broadcast(invstd, bcast_mask))
    output = fd.ops.mul(x_norm, fd.ops.broadcast(weight, channels_only_bcast_mask))
    output = fd.ops.add(output, fd.ops.broadcast(bias, channels_only_bcast_mask))
    if dtype in PROMOTE_DTYPES:
        output = fd.ops.cast(output, dtype=dtype)
    fd.add_output(output)
    fd.add_output(mean)
    fd.add_output(invstd)


with FusionDefinition() as fd:
    norm_fwd_fusion(fd, DataType.Half, "instance_norm", num_dims=4, channels_last=False)

inputs = [
    torch.randn(2, 6, 8, 8, device="cuda", dtype=torch.float16),
    torch.randn(6, device="cuda", dtype=torch.float16),
    torch.randn(6, device="cuda", dtype=torch.float16),
]
fd.execute(inputs)
