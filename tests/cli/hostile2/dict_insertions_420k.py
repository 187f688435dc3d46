import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    d = {}
    for j in range(7):
        for i in range(60000):
            d[j * 60000 + i] = i
    fd.add_output(fd.ops.exp(T0))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
