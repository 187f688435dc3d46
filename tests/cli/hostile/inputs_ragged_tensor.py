import torch
from nvfuser_direct import FusionDefinition, DataType
def f(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.exp(T0)
    fd.add_output(T1)

with FusionDefinition() as fd:
    f(fd)

inputs = [torch.tensor([[1.0, 2.0], [3.0]])]
fd.execute(inputs)
