# Style G (new op: uniform), nvfuser_direct: uniform(minval, maxval, shape,
# dtype=...) without seed arguments, its shape taken from another input via
# t0.shape(); a random-init residual on Float [6, 40].
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    lo = fd.define_scalar(-0.1, dtype=DataType.Double)
    hi = fd.define_scalar(0.1, dtype=DataType.Double)
    u = fd.ops.uniform(lo, hi, t0.shape(), dtype=DataType.Float)
    fd.add_output(fd.ops.add(t0, u))

inputs = [torch.randn(6, 40, device="cuda")]
fd.execute(inputs)
