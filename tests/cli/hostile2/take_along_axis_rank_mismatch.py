import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    fd.add_output(fd.ops.take_along_axis(T0, T1, dim=1))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8), torch.randint(0, 8, (4,))]
fd.execute(inputs)
