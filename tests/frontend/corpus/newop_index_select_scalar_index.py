# Style G (new op form: index_select by a 0-dim index), test style as
# nvFuser's test_index_select_scalar_indices: a Float [8, 16] indexed by a
# 0-dim long tensor along dim 0 and along dim 1; the selected axis keeps
# size 1 ([1, 16] and [8, 1]), as torch.index_select gives it.
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(8, 16, device="cuda"),
    torch.tensor(2, device="cuda").to(dtype=torch.long),
]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.ops.index_select(t0, t1, 0)
    t3 = fd.ops.index_select(t0, t1, dim=1)
    fd.add_output(t2)
    fd.add_output(fd.ops.mul(t3, 2.0))


with FusionDefinition() as fd:
    fusion_func(fd)

nvf_out = fd.execute(inputs)
torch.testing.assert_close(nvf_out[0], torch.index_select(inputs[0], 0, inputs[1]))
