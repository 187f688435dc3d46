# Style C (benchmark builder): layernorm_fwd_fusion taking the dtype from
# torch_dtype_to_nvfuser_dtype(torch.bfloat16) (nvfuser_direct.pytorch_utils),
# var_mean(dims=[1], correction=0), broadcast_in_dim on [T0.size(0), 1].
import torch
from nvfuser_direct import FusionDefinition, DataType
from nvfuser_direct.pytorch_utils import torch_dtype_to_nvfuser_dtype

PROMOTE_DTYPES = [DataType.BFloat16, DataType.Half]


def layernorm_fwd_fusion(fd: FusionDefinition, dtype: DataType, eps: float = 1e-5) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    if dtype in PROMOTE_DTYPES:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T1 = fd.ops.cast(T1, dtype=DataType.Float)
        T2 = fd.ops.cast(T2, dtype=DataType.Float)
    T3, T4 = fd.ops.var_mean(T0, dims=[1], correction=0, keepdim=False)
    V5 = [T0.size(0), 1]
    T6 = fd.ops.broadcast_in_dim(T3, shape=V5, broadcast_dims=[0])
    T7 = fd.ops.broadcast_in_dim(T4, shape=V5, broadcast_dims=[0])
    S8 = fd.define_scalar(eps, dtype=DataType.Double)
    T9 = fd.ops.rsqrt(fd.ops.add(T6, S8))
    T10 = fd.ops.sub(T0, fd.ops.broadcast_in_dim(T7, shape=T0.shape(), broadcast_dims=[0, 1]))
    T11 = fd.ops.mul(T10, fd.ops.broadcast_in_dim(T9, shape=T0.shape(), broadcast_dims=[0, 1]))
    T12 = fd.ops.mul(T11, fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1]))
    T13 = fd.ops.add(T12, fd.ops.broadcast_in_dim(T2, shape=T0.shape(), broadcast_dims=[1]))
    if dtype in PROMOTE_DTYPES:
        T13 = fd.ops.cast(T13, dtype=dtype)
    fd.add_output(T13)
    fd.add_output(T7)
    fd.add_output(T9)


size = (16, 192)
dtype = torch.bfloat16
with FusionDefinition() as fd:
    layernorm_fwd_fusion(fd, torch_dtype_to_nvfuser_dtype(dtype))

inputs = [
    torch.randn(size, device="cuda", dtype=dtype),
    torch.randn(size[1], device="cuda", dtype=dtype),
    torch.randn(size[1], device="cuda", dtype=dtype),
]
fd.execute(inputs)
