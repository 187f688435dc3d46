# Seeds for the reader's interpreter: a closure kept in the scope it closes
# over (a reference cycle, once a leak), two FusionDefinitions whose values
# must not mix (once an internal error), a loop, a comprehension, a dict.
import torch
from nvfuser_direct import FusionDefinition, DataType


def make(scale):
    def fusion_func(fd: FusionDefinition):
        t = fd.define_tensor(shape=[-1, -1], contiguity=[True, True])
        for k in range(2):
            t = fd.ops.mul(t, scale * (k + 1))
        sizes = {i: t.size(i) for i in range(2)}
        fd.add_output(fd.ops.sum(t, dims=[d for d in sizes if d == 1]))
    helper = fusion_func
    return helper


with FusionDefinition() as a:
    make(2.0)(a)
with FusionDefinition() as b:
    u = b.define_tensor(shape=[-1])
    b.add_output(b.ops.neg(u))
inputs = [torch.randn(4, device="cuda")]
b.execute(inputs)
