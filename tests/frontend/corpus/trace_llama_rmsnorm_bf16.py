# Style B (old nvfuser flat trace, Thunder LLaMA RMSNorm): T/S/V names,
# nvfuser_fusion_id0, stride_order=[2, 1, 0], define_scalar constants, and
# broadcast_in_dim to a literal shape. bf16 [2, 8, 64] with weight [64].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.mul(T2, T2)
    T4 = fd.ops.sum(T3, dims=[2], keepdim=False, dtype=DataType.Null)
    T5 = fd.ops.broadcast_in_dim(T4, shape=[2, 8, 1], broadcast_dims=[0, 1])
    S6 = fd.define_scalar(64.0000, dtype=DataType.Double)
    T7 = fd.ops.div(T5, S6)
    S8 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T9 = fd.ops.add(T7, S8)
    T10 = fd.ops.rsqrt(T9)
    T11 = fd.ops.broadcast_in_dim(T10, shape=[2, 8, 64], broadcast_dims=[0, 1, 2])
    T12 = fd.ops.mul(T2, T11)
    T13 = fd.ops.broadcast_in_dim(T1, shape=[2, 8, 64], broadcast_dims=[2])
    T14 = fd.ops.cast(T13, dtype=DataType.Float)
    T15 = fd.ops.mul(T12, T14)
    T16 = fd.ops.cast(T15, dtype=DataType.BFloat16)
    fd.add_output(T16)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.testing.make_tensor((2, 8, 64), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((64,), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
