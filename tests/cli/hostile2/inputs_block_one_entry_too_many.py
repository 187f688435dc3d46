import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.exp(T0))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [
    torch.randn(4, 8),
    torch.randn(3),
]
fd.execute(inputs)
