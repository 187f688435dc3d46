# Style B (old nvfuser flat trace): softmax backward over the last dim of a
# bf16 [4, 12, 32] (grad * out, row sum, broadcast back, sub, mul) with the
# casts Thunder inserts around every bf16 value.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id7(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.mul(T2, T3)
    T5 = fd.ops.sum(T4, dims=[2], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.broadcast_in_dim(T5, shape=[4, 12, 1], broadcast_dims=[0, 1])
    T7 = fd.ops.broadcast_in_dim(T6, shape=[4, 12, 32], broadcast_dims=[0, 1, 2])
    T8 = fd.ops.sub(T2, T7)
    T9 = fd.ops.mul(T3, T8)
    T10 = fd.ops.cast(T9, dtype=DataType.BFloat16)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id7(fd)

inputs = [
    torch.testing.make_tensor((4, 12, 32), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((4, 12, 32), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
