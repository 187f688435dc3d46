# Style B (old nvfuser flat trace): the cast-heavy shape of a Thunder trace
# (bf16 -> Float -> bf16 -> Float) around a tanh and a row sum, with three
# outputs and an intermediate consumed twice. bf16 [20, 44].
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id13(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.tanh(T2)
    T4 = fd.ops.cast(T3, dtype=DataType.BFloat16)
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.cast(T1, dtype=DataType.Float)
    T7 = fd.ops.mul(T5, T6)
    T8 = fd.ops.cast(T7, dtype=DataType.BFloat16)
    T9 = fd.ops.cast(T8, dtype=DataType.Float)
    T10 = fd.ops.sum(T9, dims=[1], keepdim=False, dtype=DataType.Null)
    T11 = fd.ops.cast(T10, dtype=DataType.BFloat16)
    T12 = fd.ops.mul(T5, T5)
    S13 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T14 = fd.ops.sub(S13, T12)
    T15 = fd.ops.cast(T14, dtype=DataType.BFloat16)
    fd.add_output(T4)
    fd.add_output(T11)
    fd.add_output(T15)

with FusionDefinition() as fd:
    nvfuser_fusion_id13(fd)

inputs = [
    torch.testing.make_tensor((20, 44), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((20, 44), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
