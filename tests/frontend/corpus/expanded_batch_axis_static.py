# Style F (expanded inputs): a batch-shared table declared shape=[4, -1, -1]
# with contiguity [None, True, True] (static 4 on the stride-0 batch axis),
# from torch.randn(1, 6, 10).expand(4, 6, 10); product and a max over dim 0.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[4, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    table = fd.define_tensor(shape=[4, -1, -1], contiguity=[None, True, True], dtype=DataType.Float, is_cpu=False)
    prod = fd.ops.mul(x, table)
    fd.add_output(prod)
    fd.add_output(fd.ops.max(prod, dims=[0]))

inputs = [
    torch.randn(4, 6, 10, device="cuda"),
    torch.randn(1, 6, 10, device="cuda").expand(4, 6, 10),
]
fd.execute(inputs)
