# Style G (new op: signbit): copysign written with fd.ops.signbit - the sign
# of a Float [6, 8, 10] applied to the magnitude of another - as
# where(signbit(a), neg(abs(b)), abs(b)); inputs from fd.from_pytorch.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(6, 8, 10, device="cuda", dtype=torch.float32),
    torch.randn(6, 8, 10, device="cuda", dtype=torch.float32),
]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.where(fd.ops.signbit(t0), fd.ops.neg(fd.ops.abs(t1)), fd.ops.abs(t1))
    fd.add_output(t2)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[0], torch.copysign(inputs[1], inputs[0]))
