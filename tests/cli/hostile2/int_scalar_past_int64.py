import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    S1 = fd.define_scalar(2**70, dtype=DataType.Int)
    S2 = fd.define_scalar(-2**63 - 1, dtype=DataType.Int)
    fd.add_output(fd.ops.add(fd.ops.mul(T0, S1), S2))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
