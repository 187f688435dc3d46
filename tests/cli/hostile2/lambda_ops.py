import torch
from nvfuser_direct import FusionDefinition, DataType

def fusion(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    act = lambda t, k=2: fd.ops.mul(fd.ops.exp(t), fd.define_scalar(k, dtype=DataType.Double))
    compose = lambda f, g: (lambda x: f(g(x)))
    fd.add_output(compose(act, fd.ops.neg)(T0))

with FusionDefinition() as fd:
    fusion(fd)

inputs = [torch.randn(4, 8)]
fd.execute(inputs)
