import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float)
    fd.add_output(fd.ops.matmul(T0, T1))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(()), torch.randn(())]
fd.execute(inputs)
