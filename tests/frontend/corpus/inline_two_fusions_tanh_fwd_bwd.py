# Style E (two inline fusions): a tanh forward fusion, executed with its own
# inputs, then a second `with FusionDefinition() as fd:` for the backward
# (grad * (1 - y^2)) with its own inputs block and execute. Float [16, 32].
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    y = fd.ops.tanh(x)
    fd.add_output(y)

inputs = [torch.randn(16, 32, device="cuda")]
fwd_out = fd.execute(inputs)

with FusionDefinition() as fd:
    y = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    g = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    one_minus = fd.ops.sub(1.0, fd.ops.mul(y, y))
    fd.add_output(fd.ops.mul(g, one_minus))

inputs = [
    torch.rand(16, 32, device="cuda"),
    torch.randn(16, 32, device="cuda"),
]
bwd_out = fd.execute(inputs)
