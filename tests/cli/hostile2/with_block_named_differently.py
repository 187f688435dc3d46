import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as ctx:
    T0 = ctx.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    ctx.add_output(ctx.ops.exp(T0))

inputs = [torch.randn(4, 8)]
ctx.execute(inputs)
