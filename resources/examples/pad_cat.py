# Pad a bf16 [512, 1000] block on its last dim up to 1024, cat it with a
# [512, 1024] block along dim 0, scale, then pad dim 0 by one row on each side.
# Exercises: pad width ordering (last dim first), pad on an odd extent, cat
# along the outer dim, a pad after compute (output [1026, 1024]).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    S2 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T3 = fd.ops.pad(T0, [0, 24, 0, 0], S2)
    T4 = fd.ops.cat([T3, T1], dim=0)
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    S6 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T7 = fd.ops.mul(T5, S6)
    T8 = fd.ops.cast(T7, dtype=DataType.BFloat16)
    S9 = fd.define_scalar(-1.00000, dtype=DataType.Double)
    T10 = fd.ops.pad(T8, [0, 0, 1, 1], S9)
    fd.add_output(T4)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(512000, dtype=torch.bfloat16, device='cuda:0').as_strided((512, 1000), (1000, 1)),
    torch.randn(524288, dtype=torch.bfloat16, device='cuda:0').as_strided((512, 1024), (1024, 1)),
]
fd.execute(inputs)
