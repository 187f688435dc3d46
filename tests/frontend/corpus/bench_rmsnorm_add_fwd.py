# Style C (benchmark builder): rmsnorm_add_fwd_fusion - residual add feeding
# an RMSNorm, eps passed by keyword, a list comprehension re-binding three
# names, mean of squares as sum * reciprocal(x.size(2)); both h and y output.
import torch
from nvfuser_direct import FusionDefinition, DataType

PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def rmsnorm_add_fwd_fusion(fd: FusionDefinition, dtype: DataType, eps: float = 1e-6) -> None:
    x = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=dtype, is_cpu=False)
    residual = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=dtype, is_cpu=False)
    weight = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    if dtype in PROMOTE_DTYPES:
        x, residual, weight = [fd.ops.cast(t, dtype=DataType.Float) for t in (x, residual, weight)]
    h = fd.ops.add(x, residual)
    ms = fd.ops.mul(fd.ops.sum(fd.ops.mul(h, h), dims=[2], keepdim=True), fd.ops.reciprocal(x.size(2)))
    rstd = fd.ops.rsqrt(fd.ops.add(ms, eps))
    y = fd.ops.mul(fd.ops.mul(h, rstd), fd.ops.broadcast_in_dim(weight, shape=x.shape(), broadcast_dims=[2]))
    if dtype in PROMOTE_DTYPES:
        h = fd.ops.cast(h, dtype=dtype)
        y = fd.ops.cast(y, dtype=dtype)
    fd.add_output(h)
    fd.add_output(y)


with FusionDefinition() as fd:
    rmsnorm_add_fwd_fusion(fd, DataType.BFloat16, eps=1e-5)

inputs = [
    torch.randn(2, 12, 48, device="cuda", dtype=torch.bfloat16),
    torch.randn(2, 12, 48, device="cuda", dtype=torch.bfloat16),
    torch.randn(48, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
