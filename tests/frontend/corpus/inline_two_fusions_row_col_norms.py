# Style E (two inline fusions): row L2 norms of a bf16 [40, 24] in the first
# fusion and column max-abs of a Half [18, 70] in the second; each with-block
# followed by its own inputs list and fd.execute(inputs).
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    a = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    af = fd.ops.cast(a, dtype=DataType.Float)
    sq = fd.ops.sum(fd.ops.mul(af, af), dims=[1])
    fd.add_output(fd.ops.sqrt(sq))

inputs = [torch.randn(40, 24, device="cuda", dtype=torch.bfloat16)]
fd.execute(inputs)

with FusionDefinition() as fd:
    b = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    m = fd.ops.max(fd.ops.abs(b), dims=[0])
    fd.add_output(m)

inputs = [torch.randn(18, 70, device="cuda", dtype=torch.float16)]
fd.execute(inputs)
