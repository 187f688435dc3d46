import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    names = list(range(60000))
    for j in range(7):
        for i in range(60000):
            if -1 in names:
                break
    fd.add_output(fd.ops.exp(T0))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
