# Training-mode BatchNorm over a channels-last activation flattened to
# [N*H*W, C] = [16384, 128] bf16: var_mean over dim 0, fp32 weight/bias, bf16 out.
# Exercises: outer persistent normalization (statistics over the outermost dim),
# var_mean with dims=[0], per-channel [128] mean/invstd side outputs.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[0], correction=0, keepdim=False)
    T6 = fd.ops.broadcast_in_dim(T5, shape=[16384, 128], broadcast_dims=[1])
    T7 = fd.ops.sub(T3, T6)
    S8 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T9 = fd.ops.add(T4, S8)
    T10 = fd.ops.rsqrt(T9)
    T11 = fd.ops.broadcast_in_dim(T10, shape=[16384, 128], broadcast_dims=[1])
    T12 = fd.ops.mul(T7, T11)
    T13 = fd.ops.broadcast_in_dim(T1, shape=[16384, 128], broadcast_dims=[1])
    T14 = fd.ops.mul(T12, T13)
    T15 = fd.ops.broadcast_in_dim(T2, shape=[16384, 128], broadcast_dims=[1])
    T16 = fd.ops.add(T14, T15)
    T17 = fd.ops.cast(T16, dtype=DataType.BFloat16)
    fd.add_output(T17)
    fd.add_output(T5)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((16384, 128), (128, 1)),
    torch.ones(128, dtype=torch.float32, device='cuda:0'),
    torch.zeros(128, dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
