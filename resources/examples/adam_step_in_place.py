# One Adam step over a flat fp32 parameter buffer as Thunder's optimizer
# fusions write it: lerp for both moments, sqrt + eps, the update written back
# into the parameter and the two moments (add_output(..., alias_input=)).
# Exercises: three in-place outputs, Double scalar inputs, an odd extent.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    S4 = fd.define_scalar(None, dtype=DataType.Double)
    S5 = fd.define_scalar(None, dtype=DataType.Double)
    S6 = fd.define_scalar(None, dtype=DataType.Double)
    S7 = fd.define_scalar(None, dtype=DataType.Double)
    T8 = fd.ops.lerp(T2, T1, S5)
    T9 = fd.ops.mul(T1, T1)
    T10 = fd.ops.lerp(T3, T9, S6)
    T11 = fd.ops.sqrt(T10)
    T12 = fd.ops.add(T11, S7)
    T13 = fd.ops.div(T8, T12)
    T14 = fd.ops.mul(T13, S4)
    T15 = fd.ops.sub(T0, T14)
    fd.add_output(T15, alias_input=T0)
    fd.add_output(T8, alias_input=T2)
    fd.add_output(T10, alias_input=T3)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((1048579,), dtype=torch.float32, device='cuda:0'),
    torch.randn((1048579,), dtype=torch.float32, device='cuda:0'),
    torch.randn((1048579,), dtype=torch.float32, device='cuda:0'),
    torch.rand((1048579,), dtype=torch.float32, device='cuda:0'),
    0.001,
    0.1,
    0.001,
    1e-08,
]
fd.execute(inputs)
