# Style D (test style): permutations built with list slicing - `dims[::-1]`,
# `dims[1:] + dims[:1]` - and `list(range(rank))`; permute twice and add
# back onto the reversed-order input. Float [4, 6, 10].
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(4, 6, 10, device="cuda"),
    torch.randn(10, 6, 4, device="cuda"),
]


def fusion_func(fd: FusionDefinition):
    rank = len(inputs[0].shape)
    dims = list(range(rank))
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    rev = fd.ops.permute(t0, dims=dims[::-1])
    rolled = fd.ops.permute(t0, dims=dims[1:] + dims[:1])
    fd.add_output(fd.ops.add(rev, t1))
    fd.add_output(rolled)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[0], inputs[0].permute(2, 1, 0) + inputs[1])
torch.testing.assert_close(nvf_out[1], inputs[0].permute(1, 2, 0))
