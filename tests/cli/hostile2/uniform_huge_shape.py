import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    S0 = fd.define_scalar(0.0, dtype=DataType.Double)
    S1 = fd.define_scalar(1.0, dtype=DataType.Double)
    fd.add_output(fd.ops.uniform(S0, S1, shape=[1 << 40, 1 << 40], dtype=DataType.Float))

with FusionDefinition() as fd:
    fusion(fd)

