import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.define_tensor(shape=[4, 8], contiguity=[True, True], dtype=DataType.Int)
    fd.add_output(fd.ops.cat([T0, T1], dim=0))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8), torch.randint(0, 9, (4, 8))]
fd.execute(inputs)
