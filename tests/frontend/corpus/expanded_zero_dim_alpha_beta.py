# Style F (0-dim tensor inputs): two 0-dim Float tensors alpha and beta in an
# axpby on 3-D Half tensors [2, 12, 40]: alpha * x + beta * y, computed in
# Float; the 0-dim inputs are torch.full((), ...) on the device.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Half, is_cpu=False)
    y = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Half, is_cpu=False)
    alpha = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    beta = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    ax = fd.ops.mul(alpha, fd.ops.cast(x, dtype=DataType.Float))
    by = fd.ops.mul(beta, fd.ops.cast(y, dtype=DataType.Float))
    fd.add_output(fd.ops.cast(fd.ops.add(ax, by), dtype=DataType.Half))

inputs = [
    torch.randn(2, 12, 40, device="cuda", dtype=torch.float16),
    torch.randn(2, 12, 40, device="cuda", dtype=torch.float16),
    torch.full((), 0.75, device="cuda", dtype=torch.float32),
    torch.full((), -1.25, device="cuda", dtype=torch.float32),
]
fd.execute(inputs)
