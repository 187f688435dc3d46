import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    fd.add_output(fd.ops.broadcast_in_dim(T0, shape=[4, 8], broadcast_dims=[7]))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(8)]
fd.execute(inputs)
