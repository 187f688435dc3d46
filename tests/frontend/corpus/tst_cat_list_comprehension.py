# Style D (test style): inputs of different lengths along dim 0 built in a
# list comprehension over a module-level list of row counts; definitions via
# `[fd.from_pytorch(x) for x in inputs]` then cat(ts, dim=0) and a column sum.
import torch
from nvfuser_direct import FusionDefinition, DataType

rows = [3, 5, 8]
inputs = [torch.randn(r, 24, device="cuda", dtype=torch.float16) for r in rows]


def fusion_func(fd: FusionDefinition):
    ts = [fd.from_pytorch(x) for x in inputs]
    joined = fd.ops.cat(ts, dim=0)
    colsum = fd.ops.sum(fd.ops.cast(joined, dtype=DataType.Float), dims=[0])
    fd.add_output(joined)
    fd.add_output(colsum)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[0], torch.cat(inputs, dim=0))
