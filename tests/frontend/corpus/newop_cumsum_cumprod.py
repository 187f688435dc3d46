# Style G (new ops: cumsum, cumprod), test style as nvFuser's test_cumsum and
# test_cumprod: a Float [8, 16] scanned along dim 0 (cumsum) and along the
# last dim written negative (cumprod), and an int32 [6, 40] cumsum along dim 1
# that keeps its int32 dtype, as nvFuser does (torch would give int64).
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(8, 16, device="cuda"),
    torch.randint(-9, 10, (6, 40), dtype=torch.int32, device="cuda"),
]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.cumsum(t0, 0)
    t3 = fd.ops.cumprod(t0, dim=-1)
    t4 = fd.ops.cumsum(t1, 1)
    fd.add_output(t2)
    fd.add_output(t3)
    fd.add_output(t4)


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[0], torch.cumsum(inputs[0], 0))
