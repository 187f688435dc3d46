# Style G (new ops: cummax, cummin), test style as nvFuser's test_cummax and
# test_cummin: the running max of a bf16 [4, 24, 32] along the middle dim
# (not the innermost) subtracted from the values in Float, and the running
# min of a Float [12, 48] along dim 1 given as its own output.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(4, 24, 32, device="cuda", dtype=torch.bfloat16),
    torch.randn(12, 48, device="cuda"),
]


def fusion_func(fd: FusionDefinition) -> None:
    x = fd.from_pytorch(inputs[0])
    y = fd.from_pytorch(inputs[1])
    running_max = fd.ops.cummax(x, 1)
    xf = fd.ops.cast(x, dtype=DataType.Float)
    mf = fd.ops.cast(running_max, dtype=DataType.Float)
    fd.add_output(fd.ops.sub(xf, mf))
    fd.add_output(fd.ops.cummin(y, dim=1))


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[1], torch.cummin(inputs[1], 1)[0])
