# SiLU forward and backward as two fusion definitions in one script, each with its
# own with-block, inputs and execute (a Thunder fwd/bwd pair). The forward uses a
# concrete define_tensor shape. Exercises: multiple fusions per file, restarting
# T/S numbering per definition, d/dx silu = s(x) * (1 + x * (1 - s(x))).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1024, 4096], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.silu(T1)
    T3 = fd.ops.cast(T2, dtype=DataType.BFloat16)
    fd.add_output(T3)

def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.sigmoid(T3)
    S5 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T6 = fd.ops.sub(S5, T4)
    T7 = fd.ops.mul(T3, T6)
    S8 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T9 = fd.ops.add(S8, T7)
    T10 = fd.ops.mul(T4, T9)
    T11 = fd.ops.mul(T2, T10)
    T12 = fd.ops.cast(T11, dtype=DataType.BFloat16)
    fd.add_output(T12)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(4194304, dtype=torch.bfloat16, device='cuda:0').as_strided((1024, 4096), (4096, 1)),
]
fd.execute(inputs)

with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

inputs = [
    torch.randn(4194304, dtype=torch.bfloat16, device='cuda:0').as_strided((1024, 4096), (4096, 1)),
    torch.randn(4194304, dtype=torch.bfloat16, device='cuda:0').as_strided((1024, 4096), (4096, 1)),
]
fd.execute(inputs)
