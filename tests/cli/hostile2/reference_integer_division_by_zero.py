import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    fd.add_output(fd.ops.remainder(T0, T1))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.full((8,), -9223372036854775807 - 1, dtype=torch.int64), torch.zeros(8, dtype=torch.int64)]
fd.execute(inputs)
