import torch
from nvfuser_direct import FusionDefinition, DataType

COUNT = 0

def fusion(fd: FusionDefinition) -> None:
    global COUNT
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    def step(t):
        nonlocal T0
        global COUNT
        COUNT += 1
        T0 = fd.ops.exp(t)
        return T0
    step(step(T0))
    fd.add_output(T0)

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
