import torch
from nvfuser_direct import FusionDefinition, DataType
def f(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, Tr