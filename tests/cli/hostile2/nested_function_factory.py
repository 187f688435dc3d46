import torch
from nvfuser_direct import FusionDefinition, DataType

def make(op_name):
    def inner(fd: FusionDefinition) -> None:
        T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        def apply(t):
            return getattr(fd.ops, op_name)(t)
        fd.add_output(apply(apply(T0)))
    return inner

with FusionDefinition() as fd:
    make("exp")(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
