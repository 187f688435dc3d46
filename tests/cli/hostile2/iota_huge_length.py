import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    S0 = fd.define_scalar(4611686018427387904, dtype=DataType.Int)
    fd.add_output(fd.ops.iota(S0, dtype=DataType.Int))

with FusionDefinition() as fd:
    fusion(fd)

