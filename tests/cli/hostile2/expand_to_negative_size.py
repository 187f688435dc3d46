import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Float)
    fd.add_output(fd.ops.expand(fd.ops.broadcast_in_dim(T0, shape=[1, 4, 8], broadcast_dims=[1, 2]), shape=[-5, 4, 8]))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
