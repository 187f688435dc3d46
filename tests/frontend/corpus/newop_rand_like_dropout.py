# Style G (new op: rand_like), nvfuser_direct: dropout with an in-fusion mask
# fd.ops.rand_like(x) (unary, no seed arguments in nvfuser_direct), lt against
# the keep probability, where, and 1/p scaling. Float [16, 48].
import torch
from nvfuser_direct import FusionDefinition, DataType

p_keep = 0.9

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    r = fd.ops.rand_like(x)
    keep = fd.ops.lt(r, p_keep)
    y = fd.ops.where(keep, fd.ops.mul(x, 1.0 / p_keep), 0.0)
    fd.add_output(y)
    fd.add_output(keep)

inputs = [torch.randn(16, 48, device="cuda")]
fd.execute(inputs)
