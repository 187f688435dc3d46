# Style B (old nvfuser flat trace): inference BatchNorm on NCHW bf16
# [2, 8, 6, 6] with Float running stats and affine params [8]; every
# per-channel value goes through broadcast_in_dim(..., broadcast_dims=[1]).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id6(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T5 = fd.ops.cast(T0, dtype=DataType.Float)
    S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T7 = fd.ops.add(T2, S6)
    T8 = fd.ops.rsqrt(T7)
    T9 = fd.ops.broadcast_in_dim(T1, shape=[2, 8, 6, 6], broadcast_dims=[1])
    T10 = fd.ops.sub(T5, T9)
    T11 = fd.ops.broadcast_in_dim(T8, shape=[2, 8, 6, 6], broadcast_dims=[1])
    T12 = fd.ops.mul(T10, T11)
    T13 = fd.ops.broadcast_in_dim(T3, shape=[2, 8, 6, 6], broadcast_dims=[1])
    T14 = fd.ops.mul(T12, T13)
    T15 = fd.ops.broadcast_in_dim(T4, shape=[2, 8, 6, 6], broadcast_dims=[1])
    T16 = fd.ops.add(T14, T15)
    T17 = fd.ops.cast(T16, dtype=DataType.BFloat16)
    fd.add_output(T17)

with FusionDefinition() as fd:
    nvfuser_fusion_id6(fd)

inputs = [
    torch.testing.make_tensor((2, 8, 6, 6), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((8,), dtype=torch.float32, device='cuda:0'),
    torch.rand((8,), dtype=torch.float32, device='cuda:0'),
    torch.ones((8,), dtype=torch.float32, device='cuda:0'),
    torch.zeros((8,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
