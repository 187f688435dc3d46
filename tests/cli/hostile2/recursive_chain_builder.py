import torch
from nvfuser_direct import FusionDefinition, DataType

def chain(fd, t, n):
    if n == 0:
        return t
    return chain(fd, fd.ops.exp(t), n - 1)

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(chain(fd, T0, 10000))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
