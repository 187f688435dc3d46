# Style D (test style): `for i, (t, w) in enumerate(zip(tensors, weights))`
# building a weighted sum, with `if i == 0:` for the first term; weights are a
# module-level list of floats. Float [8, 8, 8].
import torch
from nvfuser_direct import FusionDefinition, DataType

weights = [0.5, 0.25, 0.125, 0.0625]
inputs = [torch.randn(8, 8, 8, device="cuda") for _ in weights]


def fusion_func(fd: FusionDefinition):
    tensors = [fd.from_pytorch(x) for x in inputs]
    out = None
    for i, (t, w) in enumerate(zip(tensors, weights)):
        term = fd.ops.mul(t, w)
        if i == 0:
            out = term
        else:
            out = fd.ops.add(out, term)
    fd.add_output(out)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
expected = sum(x * w for x, w in zip(inputs, weights))
torch.testing.assert_close(nvf_out[0], expected)
