import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    if (T1 := fd.ops.exp(T0)) is not None:
        fd.add_output(T1)
    xs = [y := 3, y + 1]

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
