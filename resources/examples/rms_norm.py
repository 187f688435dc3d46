# RMSNorm forward (Llama style) on a [4, 256, 2048] bf16 activation: mean of
# squares written as sum(x*x) times the 1/N scalar, rsqrt(ms + eps), weight.
# Exercises: 3-D inner persistent reduction, sum + scalar-mul instead of mean,
# a keep-shaped [4, 256, 1] side output (rstd).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.mul(T2, T2)
    T4 = fd.ops.sum(T3, dims=[2], keepdim=False, dtype=DataType.Null)
    T5 = fd.ops.broadcast_in_dim(T4, shape=[4, 256, 1], broadcast_dims=[0, 1])
    S6 = fd.define_scalar(0.00048828125, dtype=DataType.Double)
    T7 = fd.ops.mul(T5, S6)
    S8 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T9 = fd.ops.add(T7, S8)
    T10 = fd.ops.rsqrt(T9)
    T11 = fd.ops.broadcast_in_dim(T10, shape=[4, 256, 2048], broadcast_dims=[0, 1, 2])
    T12 = fd.ops.mul(T2, T11)
    T13 = fd.ops.broadcast_in_dim(T1, shape=[4, 256, 2048], broadcast_dims=[2])
    T14 = fd.ops.cast(T13, dtype=DataType.Float)
    T15 = fd.ops.mul(T12, T14)
    T16 = fd.ops.cast(T15, dtype=DataType.BFloat16)
    fd.add_output(T16)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((4, 256, 2048), (524288, 2048, 1)),
    torch.randn(2048, dtype=torch.bfloat16, device='cuda:0').as_strided((2048,), (1,)),
]
fd.execute(inputs)
