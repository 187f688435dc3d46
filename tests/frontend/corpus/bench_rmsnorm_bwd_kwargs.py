# Style C (benchmark builder): rmsnorm_bwd_fusion called with keyword
# arguments (dtype=DataType.Half); `if dtype is not DataType.Float:` casts,
# the saved rms input, and sums over dims=[0] for the weight gradient.
import torch
from nvfuser_direct import FusionDefinition, DataType


def rmsnorm_bwd_fusion(fd: FusionDefinition, dtype: DataType) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=dtype, is_cpu=False)
    if dtype is not DataType.Float:
        T0 = fd.ops.cast(T0, dtype=DataType.Float)
        T2 = fd.ops.cast(T2, dtype=DataType.Float)
        T3 = fd.ops.cast(T3, dtype=DataType.Float)
    V = T0.shape()
    T4 = fd.ops.broadcast_in_dim(T1, shape=V, broadcast_dims=[0, 1])
    T5 = fd.ops.reciprocal(T4)
    T6 = fd.ops.mul(T0, T5)
    T7 = fd.ops.broadcast_in_dim(T3, shape=V, broadcast_dims=[1])
    T8 = fd.ops.sum(fd.ops.mul(T2, T6), dims=[0], keepdim=False)
    T9 = fd.ops.mul(T2, T7)
    T10 = fd.ops.sum(fd.ops.mul(T9, T6), dims=[1], keepdim=False)
    T11 = fd.ops.broadcast_in_dim(T10, shape=[T0.size(0), 1], broadcast_dims=[0])
    S12 = fd.ops.reciprocal(T0.size(1))
    T13 = fd.ops.mul(fd.ops.mul(T11, S12), T6)
    T14 = fd.ops.sub(T9, fd.ops.broadcast_in_dim(T13, shape=V, broadcast_dims=[0, 1]))
    T15 = fd.ops.mul(T14, T5)
    if dtype is not DataType.Float:
        T15 = fd.ops.cast(T15, dtype=dtype)
        T8 = fd.ops.cast(T8, dtype=dtype)
    fd.add_output(T15)
    fd.add_output(T8)


with FusionDefinition() as fd:
    rmsnorm_bwd_fusion(fd=fd, dtype=DataType.Half)

x = torch.randn(24, 80, device="cuda", dtype=torch.float16)
rms = torch.full((24, 1), 0.8, device="cuda", dtype=torch.float32)
inputs = [x, rms, torch.randn(24, 80, device="cuda", dtype=torch.float16), torch.randn(80, device="cuda", dtype=torch.float16)]
fd.execute(inputs)
