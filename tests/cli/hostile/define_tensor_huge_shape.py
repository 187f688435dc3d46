import torch
from nvfuser_direct import FusionDefinition, DataType
def f(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[99999999999999999999], contiguity=[True], dtype=DataType.Float)
    fd.add_output(fd.ops.exp(T0))

with FusionDefinition() as fd:
    f(fd)
