import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.pad(T0, [1, 2, 3]))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
