# Style E (inline with-block): positional forms instead of keywords -
# cast(t, DataType.Half), sum(t, [1]) and sum(t, [0], True),
# broadcast_in_dim(t, [12, 36], [0]), permute(t, [1, 0]), define_scalar(2.5).
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor([-1, -1], [True, True], DataType.Float)
    s0 = fd.define_scalar(2.5)
    t1 = fd.ops.mul(t0, s0)
    t2 = fd.ops.sum(t1, [1])
    t3 = fd.ops.broadcast_in_dim(t2, [12, 36], [0])
    t4 = fd.ops.sub(t1, t3)
    t5 = fd.ops.sum(t4, [0], True)
    t6 = fd.ops.permute(t4, [1, 0])
    fd.add_output(fd.ops.cast(t6, DataType.Half))
    fd.add_output(t5)

inputs = [torch.randn(12, 36, device="cuda")]
fd.execute(inputs)
