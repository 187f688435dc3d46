# Tanh-approximate GELU on a bf16 MLP activation [512, 4096], written out op by
# op: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
# Exercises: a long single-input pointwise chain, constant folding candidates,
# scalar-on-the-left operands (mul(S, T), add(S, T)).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.mul(T1, T1)
    T3 = fd.ops.mul(T2, T1)
    S4 = fd.define_scalar(0.0447150, dtype=DataType.Double)
    T5 = fd.ops.mul(S4, T3)
    T6 = fd.ops.add(T1, T5)
    S7 = fd.define_scalar(0.797885, dtype=DataType.Double)
    T8 = fd.ops.mul(S7, T6)
    T9 = fd.ops.tanh(T8)
    S10 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T11 = fd.ops.mul(S10, T1)
    S12 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T13 = fd.ops.add(S12, T9)
    T14 = fd.ops.mul(T11, T13)
    T15 = fd.ops.cast(T14, dtype=DataType.BFloat16)
    fd.add_output(T15)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn(2097152, dtype=torch.bfloat16, device='cuda:0').as_strided((512, 4096), (4096, 1)),
]
fd.execute(inputs)
