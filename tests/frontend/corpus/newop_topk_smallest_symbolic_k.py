# Style G (new op: topk): k is a value-less Int scalar input (5 in the inputs
# block), largest=False picks the smallest entries along dim 0 of a Half
# [20, 6]; outputs the values cast to Float and the indices.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [torch.randn(20, 6, device="cuda", dtype=torch.float16), 5]


def fusion_func(fd: FusionDefinition):
    t0 = fd.from_pytorch(inputs[0])
    k = fd.define_scalar(None, dtype=DataType.Int)
    vals, idx = fd.ops.topk(t0, k, dim=0, largest=False, sorted=True)
    fd.add_output(fd.ops.cast(vals, dtype=DataType.Float))
    fd.add_output(idx)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[0], torch.topk(inputs[0], 5, dim=0, largest=False).values.float())
