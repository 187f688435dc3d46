# Style C (benchmark builder): rmsnorm_fwd_fusion(fd, dtype, eps=1e-5) with a
# module-level PROMOTE_DTYPES list, `if dtype in PROMOTE_DTYPES:` casts, shapes
# from T0.size(0) and T0.shape(), called positionally with DataType.BFloat16.
import torch
from nvfuser_direct import FusionDefinition, DataType

PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def rmsnorm_fwd_fusion(
    fd: FusionDefinition,
    dtype: DataType,
    eps: float = 1e-5,
):
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)
    S2 = fd.define_scalar(2.0, dtype=DataType.Double)
    T3 = fd.ops.pow(T0, S2)
    T4 = fd.ops.sum(T3, dims=[1], keepdim=False, dtype=DataType.Null)
    T5 = fd.ops.broadcast_in_dim(T4, shape=[T0.size(0), 1], broadcast_dims=[0])
    S6 = fd.ops.reciprocal(T0.size(1))
    T7 = fd.ops.mul(T5, S6)
    S8 = fd.define_scalar(eps, dtype=DataType.Double)
    T9 = fd.ops.add(T7, S8)
    T10 = fd.ops.sqrt(T9)
    T11 = fd.ops.broadcast_in_dim(T10, shape=T0.shape(), broadcast_dims=[0, 1])
    T12 = fd.ops.div(T0, T11)
    T13 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1])
    T14 = fd.ops.mul(T13, T12)
    if dtype in PROMOTE_DTYPES:
        T14 = fd.ops.cast(T14, dtype=dtype)
    fd.add_output(T14)
    fd.add_output(T10)


with FusionDefinition() as fd:
    rmsnorm_fwd_fusion(fd, DataType.BFloat16)

inputs = [
    torch.randn(32, 96, device="cuda", dtype=torch.bfloat16),
    torch.randn(96, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
