# Style F (expanded inputs, Thunder LLaMA RoPE with batch 2): cos/sin of
# [8, 16] expanded over batch and heads - shape [-1, -1, -1, -1], contiguity
# [None, None, True, True], strides (0, 0, 16, 1) - applied to q [2, 3, 8, 16].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id6(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[None, None, True, True], dtype=DataType.Half, is_cpu=False, stride_order=[3, 2, 1, 0])
    T2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[None, None, True, True], dtype=DataType.Half, is_cpu=False, stride_order=[3, 2, 1, 0])
    T3 = fd.ops.slice(T0, start_indices=[0, 0, 0, 0], end_indices=[2, 3, 8, 8], strides=[1, 1, 1, 1])
    T4 = fd.ops.slice(T0, start_indices=[0, 0, 0, 8], end_indices=[2, 3, 8, 16], strides=[1, 1, 1, 1])
    T5 = fd.ops.cat([fd.ops.neg(T4), T3], dim=3)
    T6 = fd.ops.cast(T0, dtype=DataType.Float)
    T7 = fd.ops.cast(T1, dtype=DataType.Float)
    T8 = fd.ops.cast(T5, dtype=DataType.Float)
    T9 = fd.ops.cast(T2, dtype=DataType.Float)
    T10 = fd.ops.add(fd.ops.mul(T6, T7), fd.ops.mul(T8, T9))
    T11 = fd.ops.cast(T10, dtype=DataType.Half)
    fd.add_output(T11)

with FusionDefinition() as fd:
    nvfuser_fusion_id6(fd)

inputs = [
    torch.randn((768,), dtype=torch.float16, device='cuda:0').as_strided((2, 3, 8, 16), (384, 128, 16, 1)),
    torch.randn((128,), dtype=torch.float16, device='cuda:0').as_strided((2, 3, 8, 16), (0, 0, 16, 1)),
    torch.randn((128,), dtype=torch.float16, device='cuda:0').as_strided((2, 3, 8, 16), (0, 0, 16, 1)),
]
fd.execute(inputs)
