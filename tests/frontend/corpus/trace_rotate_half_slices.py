# Style B (old nvfuser flat trace): rotate_half for RoPE on Half
# [1, 4, 16, 24]: two slices of the last dim, neg, cat(..., dim=-1), then
# x * cos + rotated * sin with cos/sin [16, 24] broadcast_in_dim'ed to 4-D.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id8(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1, -1, -1], contiguity=[None, True, True, True], dtype=DataType.Half, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False, stride_order=[1, 0])
    T3 = fd.ops.slice(T0, start_indices=[0, 0, 0, 0], end_indices=[1, 4, 16, 12], strides=[1, 1, 1, 1])
    T4 = fd.ops.slice(T0, start_indices=[0, 0, 0, 12], end_indices=[1, 4, 16, 24], strides=[1, 1, 1, 1])
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.neg(T5)
    T7 = fd.ops.cast(T6, dtype=DataType.Half)
    T8 = fd.ops.cat([T7, T3], dim=-1)
    T9 = fd.ops.broadcast_in_dim(T1, shape=[1, 4, 16, 24], broadcast_dims=[2, 3])
    T10 = fd.ops.broadcast_in_dim(T2, shape=[1, 4, 16, 24], broadcast_dims=[2, 3])
    T11 = fd.ops.cast(T0, dtype=DataType.Float)
    T12 = fd.ops.cast(T9, dtype=DataType.Float)
    T13 = fd.ops.mul(T11, T12)
    T14 = fd.ops.cast(T8, dtype=DataType.Float)
    T15 = fd.ops.cast(T10, dtype=DataType.Float)
    T16 = fd.ops.mul(T14, T15)
    T17 = fd.ops.add(T13, T16)
    T18 = fd.ops.cast(T17, dtype=DataType.Half)
    fd.add_output(T18)

with FusionDefinition() as fd:
    nvfuser_fusion_id8(fd)

inputs = [
    torch.testing.make_tensor((1, 4, 16, 24), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((16, 24), dtype=torch.float16, device='cuda:0'),
    torch.testing.make_tensor((16, 24), dtype=torch.float16, device='cuda:0'),
]
fd.execute(inputs)
