import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    with FusionDefinition() as fd2:
        T1 = fd2.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        fd2.add_output(fd.ops.exp(T0))
    fd.add_output(fd2.ops.neg(T1))

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
