# Style D (test style): `for start in range(0, n, chunk)` slicing a tensor into
# chunks along dim 1 with `min(start + chunk, n)` ends, reducing each chunk
# and collecting outputs in a list added with a final loop. Float [10, 50].
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [torch.randn(10, 50, device="cuda")]
chunk = 16


def fusion_func(fd: FusionDefinition):
    x = fd.from_pytorch(inputs[0])
    rows, n = inputs[0].shape
    outs = []
    for start in range(0, n, chunk):
        end = min(start + chunk, n)
        piece = fd.ops.slice(x, start_indices=[0, start], end_indices=[rows, end])
        outs.append(fd.ops.max(piece, dims=[1]))
    for o in outs:
        fd.add_output(o)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
assert len(nvf_out) == 4
torch.testing.assert_close(nvf_out[3], inputs[0][:, 48:].amax(1))
