# Scaled softmax over the last dim of bf16 attention scores [2, 16, 256, 256]:
# scale, max, sub, exp, sum, div, each reduction re-broadcast with broadcast_in_dim.
# Exercises: two dependent inner reductions over the same persistent row
# (max then sum), 4-D broadcast_in_dim chains, fp32 compute with bf16 io.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    S2 = fd.define_scalar(0.125000, dtype=DataType.Double)
    T3 = fd.ops.mul(T1, S2)
    T4 = fd.ops.max(T3, dims=[3], keepdim=False, dtype=DataType.Null)
    T5 = fd.ops.broadcast_in_dim(T4, shape=[2, 16, 256, 1], broadcast_dims=[0, 1, 2])
    T6 = fd.ops.broadcast_in_dim(T5, shape=[2, 16, 256, 256], broadcast_dims=[0, 1, 2, 3])
    T7 = fd.ops.sub(T3, T6)
    T8 = fd.ops.exp(T7)
    T9 = fd.ops.sum(T8, dims=[3], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.broadcast_in_dim(T9, shape=[2, 16, 256, 1], broadcast_dims=[0, 1, 2])
    T11 = fd.ops.broadcast_in_dim(T10, shape=[2, 16, 256, 256], broadcast_dims=[0, 1, 2, 3])
    T12 = fd.ops.div(T8, T11)
    T13 = fd.ops.cast(T12, dtype=DataType.BFloat16)
    fd.add_output(T13)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((2, 16, 256, 256), (1048576, 65536, 256, 1)),
]
fd.execute(inputs)
