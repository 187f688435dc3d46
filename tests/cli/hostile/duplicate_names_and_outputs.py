import torch
from nvfuser_direct import FusionDefinition, DataType
def f(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    T1 = fd.ops.add(T0, T0)
    T1 = fd.ops.exp(T1)
    fd.add_output(T1)
    fd.add_output(T1)

with FusionDefinition() as fd:
    f(fd)

inputs = [torch.randn(8), torch.randn(8)]
fd.execute(inputs)
