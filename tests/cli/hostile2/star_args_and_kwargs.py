import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    args = [T0, T0]
    kw = {"dims": [1], "keepdim": False}
    T1 = fd.ops.add(*args)
    T2 = fd.ops.sum(T1, **kw)
    fd.add_output(T2)

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
