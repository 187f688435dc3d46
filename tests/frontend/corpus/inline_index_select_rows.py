# Style E (inline with-block): gather rows of a Half table [30, 16] with an
# Int index [12] through index_select(dim=0), then gather along dim 1 with
# an Int [12, 4] index tensor. Indices from torch.randint with safe bounds.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    table = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    rows = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    cols = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    picked = fd.ops.index_select(table, rows, dim=0)
    narrow = fd.ops.gather(picked, cols, dim=1)
    fd.add_output(picked)
    fd.add_output(fd.ops.cast(narrow, dtype=DataType.Float))

inputs = [
    torch.randn(30, 16, device="cuda", dtype=torch.float16),
    torch.randint(0, 30, (12,), device="cuda"),
    torch.randint(0, 16, (12, 4), device="cuda"),
]
fd.execute(inputs)
