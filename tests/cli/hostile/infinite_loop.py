import torch
from nvfuser_direct import FusionDefinition, DataType
def f(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    while True:
        pass

with FusionDefinition() as fd:
    f(fd)
