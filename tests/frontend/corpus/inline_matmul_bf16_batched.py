# Style E (inline with-block): batched bf16 matmul [3, 16, 24] x [3, 24, 20]
# then a Float row max and a scaled output cast back to bf16.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    a = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    b = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    c = fd.ops.matmul(a, b)
    cf = fd.ops.cast(c, dtype=DataType.Float)
    fd.add_output(fd.ops.max(cf, dims=[2]))
    fd.add_output(fd.ops.cast(fd.ops.mul(cf, 0.125), dtype=DataType.BFloat16))

inputs = [
    torch.randn(3, 16, 24, device="cuda", dtype=torch.bfloat16),
    torch.randn(3, 24, 20, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
