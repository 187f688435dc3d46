import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    name = f"{'ex'}{chr(112)}"
    T1 = getattr(fd.ops, name)(T0)
    label = f"{T1!r:>{10}}"
    fd.add_output(T1)

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
