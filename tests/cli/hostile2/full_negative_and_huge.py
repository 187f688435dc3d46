import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    S0 = fd.define_scalar(1.0, dtype=DataType.Double)
    fd.add_output(fd.ops.full(shape=[-3, 4], fill_value=S0, dtype=DataType.Float))
    fd.add_output(fd.ops.full(shape=[4611686018427387904, 4], fill_value=S0, dtype=DataType.Float))

with FusionDefinition() as fd:
    fusion(fd)

