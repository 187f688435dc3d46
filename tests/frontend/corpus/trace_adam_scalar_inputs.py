# Style B (old nvfuser flat trace): an Adam-style parameter update on a flat
# Float [1024] buffer where lr, beta1, beta2 and eps arrive as value-less
# scalar inputs S4..S7 (plain floats at the end of the inputs block).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id9(fd : FusionDefinition) -> None :
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
    fd.add_output(T15)
    fd.add_output(T8)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id9(fd)

inputs = [
    torch.testing.make_tensor((1024,), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((1024,), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((1024,), dtype=torch.float32, device='cuda:0'),
    torch.rand((1024,), dtype=torch.float32, device='cuda:0'),
    0.001,
    0.1,
    0.001,
    1e-08,
]
fd.execute(inputs)
