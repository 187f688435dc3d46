# Style B (old nvfuser flat trace): exact (erf) GELU backward on Float
# [32, 64]: erf, exp of -x^2/2, several define_scalar constants, add/mul chain.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id3(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    S2 = fd.define_scalar(0.707107, dtype=DataType.Double)
    T3 = fd.ops.mul(T0, S2)
    T4 = fd.ops.erf(T3)
    S5 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T6 = fd.ops.add(T4, S5)
    S7 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T8 = fd.ops.mul(T6, S7)
    T9 = fd.ops.mul(T0, T0)
    S10 = fd.define_scalar(-0.500000, dtype=DataType.Double)
    T11 = fd.ops.mul(T9, S10)
    T12 = fd.ops.exp(T11)
    S13 = fd.define_scalar(0.398942, dtype=DataType.Double)
    T14 = fd.ops.mul(T12, S13)
    T15 = fd.ops.mul(T0, T14)
    T16 = fd.ops.add(T8, T15)
    T17 = fd.ops.mul(T1, T16)
    fd.add_output(T17)

with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

inputs = [
    torch.testing.make_tensor((32, 64), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((32, 64), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
