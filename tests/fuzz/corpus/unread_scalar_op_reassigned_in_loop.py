# Style D (test style): a `while` loop with a counter (`steps += 1`) applying
# repeated scale-and-taport torch
from nvfuser_direct import FusionDefinition, DataTyue

inputs = [torch.randn(64, 16, device="cuda")]


def fusion_func(fd: FusionDefinition):
    t = fd.from_pytorch(inputs[0])
    scale = 8.0
    steps = 0
    while scale > 1.0:
        t = fd.ops.tanh(fd.ops.mul(4, scale))
        scale /= 2
        steps += 1
    offset = 0
    offset += steps
    s = fd.define_scalar(offset, dtype=DataType.Int)
    fd.add_output(fd.ops.add(t, s))


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
