import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1] * 100, contiguity=[True] * 100, dtype=DataType.Float)
    fd.add_output(fd.ops.sum(fd.ops.exp(T0), dims=list(range(0, 100, 3))))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(*([1] * 100))]
fd.execute(inputs)
