# Rotary position embedding (litgpt/Thunder form) on q [2, 32, 256, 128] bf16 with
# cos/sin tables [256, 128]: x*cos + cat(-x2, x1)*sin, halves sliced from head dim.
# Exercises: slice of both halves of the innermost dim, neg, cat on the last dim,
# broadcast_in_dim of 2-D tables onto the two innermost dims of a 4-D tensor.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T3 = fd.ops.slice(T0, start_indices=[0, 0, 0, 0], end_indices=[2, 32, 256, 64], strides=[1, 1, 1, 1])
    T4 = fd.ops.slice(T0, start_indices=[0, 0, 0, 64], end_indices=[2, 32, 256, 128], strides=[1, 1, 1, 1])
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.neg(T5)
    T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)
    T8 = fd.ops.cat([T7, T3], dim=3)
    T9 = fd.ops.broadcast_in_dim(T1, shape=[2, 32, 256, 128], broadcast_dims=[2, 3])
    T10 = fd.ops.cast(T0, dtype=DataType.Float)
    T11 = fd.ops.cast(T9, dtype=DataType.Float)
    T12 = fd.ops.mul(T10, T11)
    T13 = fd.ops.broadcast_in_dim(T2, shape=[2, 32, 256, 128], broadcast_dims=[2, 3])
    T14 = fd.ops.cast(T8, dtype=DataType.Float)
    T15 = fd.ops.cast(T13, dtype=DataType.Float)
    T16 = fd.ops.mul(T14, T15)
    T17 = fd.ops.add(T12, T16)
    T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)
    fd.add_output(T18)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((2, 32, 256, 128), (1048576, 32768, 128, 1)),
    torch.randn(32768, dtype=torch.bfloat16, device='cuda:0').as_strided((256, 128), (128, 1)),
    torch.randn(32768, dtype=torch.bfloat16, device='cuda:0').as_strided((256, 128), (128, 1)),
]
fd.execute(inputs)
