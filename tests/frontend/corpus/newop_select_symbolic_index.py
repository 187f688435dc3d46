# Style G (new op: select): the index is a fusion input -
# fd.define_scalar(dtype=DataType.Int) with no value, given as `index := 3`
# (a walrus inside the inputs list, as nvFuser's own test writes it) - and
# select uses the keyword names arg=, index=, dim=.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    i0 = fd.define_scalar(dtype=DataType.Int)
    row = fd.ops.select(arg=t0, index=i0, dim=0)
    rowf = fd.ops.cast(row, dtype=DataType.Float)
    fd.add_output(fd.ops.sum(rowf, dims=[0]))
    fd.add_output(row)

inputs = [
    torch.randn(7, 64, device="cuda", dtype=torch.float16),
    index := 3,
]
fd.execute(inputs)
