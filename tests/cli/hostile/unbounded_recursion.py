import torch
from nvfuser_direct import FusionDefinition, DataType
def g(n):
    return g(n + 1)

def f(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    g(0)

with FusionDefinition() as fd:
    f(fd)
