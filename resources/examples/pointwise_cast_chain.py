# Pure pointwise chain on two bf16 [1024, 2048] tensors plus a runtime Double
# scalar input: cast up, mul/add/abs/log1p/sigmoid, gt -> where, clamp, tanh, cast down.
# Exercises: pointwise scheduler, type promotion, Bool intermediates and a Bool
# output, a scalar fusion input (define_scalar without a value).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    S2 = fd.define_scalar(dtype=DataType.Double)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.mul(T3, S2)
    T6 = fd.ops.add(T5, T4)
    T7 = fd.ops.abs(T6)
    T8 = fd.ops.log1p(T7)
    T9 = fd.ops.sigmoid(T4)
    S10 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T11 = fd.ops.gt(T6, S10)
    T12 = fd.ops.where(T11, T8, T9)
    S13 = fd.define_scalar(-4.00000, dtype=DataType.Double)
    S14 = fd.define_scalar(4.00000, dtype=DataType.Double)
    T15 = fd.ops.clamp(T12, S13, S14)
    T16 = fd.ops.tanh(T15)
    T17 = fd.ops.mul(T16, T3)
    S18 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T19 = fd.ops.sub(T17, S18)
    T20 = fd.ops.cast(T19, dtype=DataType.BFloat16)
    fd.add_output(T20)
    fd.add_output(T11)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((1024, 2048), (2048, 1)),
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((1024, 2048), (2048, 1)),
    0.5,
]
fd.execute(inputs)
