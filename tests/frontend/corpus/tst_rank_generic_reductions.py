# Style D (test style): rank-generic definitions - `[-1] * rank`,
# `[True] * rank`, one sum per dim in `for dim in range(rank)`, each added as
# an output; Half [6, 10, 14] input.
import torch
from nvfuser_direct import FusionDefinition, DataType

rank = 3
inputs = [torch.randn(6, 10, 14, device="cuda", dtype=torch.float16)]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.define_tensor(shape=[-1] * rank, contiguity=[True] * rank, dtype=DataType.Half, is_cpu=False)
    t1 = fd.ops.cast(t0, dtype=DataType.Float)
    for dim in range(rank):
        red = fd.ops.sum(t1, dims=[dim], keepdim=False)
        fd.add_output(red)


with FusionDefinition() as fd:
    fusion_func(fd)

outs = fd.execute(inputs)
for dim, out in enumerate(outs):
    torch.testing.assert_close(out, inputs[0].float().sum(dim), rtol=1e-3, atol=1e-3)
