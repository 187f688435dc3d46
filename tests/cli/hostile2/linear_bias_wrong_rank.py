import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    T2 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16)
    fd.add_output(fd.ops.linear(T0, T1, T2))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8, dtype=torch.bfloat16), torch.randn(16, 8, dtype=torch.bfloat16), torch.randn(2, 3, 16, dtype=torch.bfloat16)]
fd.execute(inputs)
