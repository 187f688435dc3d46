import torch
from nvfuser_direct import FusionDefinition, DataType

class Builder:
    def __init__(self, fd):
        self.fd = fd
    def __call__(self, t):
        return self.fd.ops.exp(t)

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(Builder(fd)(T0))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
