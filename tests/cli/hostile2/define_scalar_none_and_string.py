import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    S1 = fd.define_scalar(None, dtype=DataType.Double)
    S2 = fd.define_scalar("three", dtype=DataType.Double)
    fd.add_output(fd.ops.mul(T0, S2))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
