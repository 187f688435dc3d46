# Style G (new op: index_put_accumulate, old nvfuser): keyword form
# index_put_accumulate(acc=..., index=..., value=...) with an Int32 index, a
# bf16 gradient cast to Float first, and a scaled result. Table [40, 8].
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    acc = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    idx = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int32, is_cpu=False)
    grad = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    gf = fd.ops.cast(grad, dtype=DataType.Float)
    out = fd.ops.index_put_accumulate(acc=acc, index=idx, value=gf)
    fd.add_output(fd.ops.mul(out, 0.5))

inputs = [
    torch.randn(40, 8, device="cuda"),
    torch.randint(0, 40, (25,), dtype=torch.int32, device="cuda"),
    torch.randn(25, 8, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
