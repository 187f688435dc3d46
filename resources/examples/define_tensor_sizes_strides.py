# Residual add plus a broadcast fp32 bias, with inputs declared in the
# define_tensor(sizes=..., strides=...) form (as fd.from_pytorch would) instead of
# shape/contiguity. Exercises: deriving contiguity and broadcast dims (the [1, 4096]
# bias) from sizes/strides, a same-rank add against a broadcast dim.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(sizes=[512, 4096], strides=[4096, 1], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(sizes=[512, 4096], strides=[4096, 1], dtype=DataType.BFloat16)
    T2 = fd.define_tensor(sizes=[1, 4096], strides=[4096, 1], dtype=DataType.Float)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.add(T3, T4)
    T6 = fd.ops.add(T5, T2)
    T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)
    T8 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    fd.add_output(T7)
    fd.add_output(T8)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((512, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((512, 4096), dtype=torch.bfloat16, device='cuda:0'),
    torch.randn((1, 4096), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
