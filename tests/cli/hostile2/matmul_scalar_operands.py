import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    S0 = fd.define_scalar(2.0, dtype=DataType.Double)
    fd.add_output(fd.ops.matmul(S0, S0))

with FusionDefinition() as fd:
    fusion(fd)

