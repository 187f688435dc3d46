import torch
from nvfuser_direct import FusionDefinition, DataType

def a(n):
    return b(n + 1)

def b(n):
    return a(n * 1)

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.exp(T0))
    a(0)

with FusionDefinition() as fd:
    fusion(fd)
