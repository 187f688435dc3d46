import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Float)
    fd.add_output(fd.ops.squeeze(T0, dims=[0, 0, -2]))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(1, 8)]
fd.execute(inputs)
