# Style F (expanded inputs): a 3-D input expanded in the middle axis -
# contiguity [True, None, True], strides (16, 0, 1) from
# torch.randn(3, 1, 16).expand(3, 5, 16) - subtracted from a dense bf16 tensor.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    t1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, None, True], dtype=DataType.BFloat16, is_cpu=False)
    d = fd.ops.sub(fd.ops.cast(t0, dtype=DataType.Float), fd.ops.cast(t1, dtype=DataType.Float))
    fd.add_output(fd.ops.cast(fd.ops.mul(d, d), dtype=DataType.BFloat16))

inputs = [
    torch.randn(3, 5, 16, device="cuda", dtype=torch.bfloat16),
    torch.randn(3, 1, 16, device="cuda", dtype=torch.bfloat16).expand(3, 5, 16),
]
fd.execute(inputs)
