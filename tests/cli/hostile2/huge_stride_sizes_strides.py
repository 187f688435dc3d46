import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(sizes=[4, 8], strides=[9223372036854775807, 1], dtype=DataType.Float)
    fd.add_output(fd.ops.exp(T0))

with FusionDefinition() as fd:
    fusion(fd)

