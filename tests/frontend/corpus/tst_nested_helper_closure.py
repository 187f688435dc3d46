# Style D (test style): nested helper functions inside fusion_func that close
# over fd (`def norm(x):` and `def affine(x, w, b):`), a default argument, and
# a lambda; Float [10, 40] input with [40] weight and bias.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(10, 40, device="cuda"),
    torch.randn(40, device="cuda"),
    torch.randn(40, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    def norm(x, eps=1e-6):
        var, mean = fd.ops.var_mean(x, dims=[1], correction=0, keepdim=True)
        return fd.ops.mul(fd.ops.sub(x, mean), fd.ops.rsqrt(fd.ops.add(var, eps)))

    def affine(x, w, b):
        row = lambda v: fd.ops.broadcast_in_dim(v, shape=[10, 40], broadcast_dims=[1])
        return fd.ops.add(fd.ops.mul(x, row(w)), row(b))

    x, w, b = [fd.from_pytorch(t) for t in inputs]
    fd.add_output(affine(norm(x), w, b))


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
ref = torch.nn.functional.layer_norm(inputs[0], (40,), inputs[1], inputs[2], eps=1e-6)
torch.testing.assert_close(nvf_out[0], ref, rtol=1e-4, atol=1e-4)
