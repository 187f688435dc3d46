import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    fd.add_output(fd.ops.neg(T0))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randint(10, 0, (8,))]
fd.execute(inputs)
