# Style D (test style): `use_low = inputs[0].dtype in (torch.bfloat16,
# torch.float16)` and conditional expressions choosing casts and the output
# dtype; a ternary inside a call argument. bf16 [14, 66].
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(14, 66, device="cuda", dtype=torch.bfloat16),
    torch.randn(66, device="cuda", dtype=torch.bfloat16),
]
use_low = inputs[0].dtype in (torch.bfloat16, torch.float16)
out_dtype = DataType.BFloat16 if inputs[0].dtype == torch.bfloat16 else DataType.Half


def fusion_func(fd: FusionDefinition):
    x = fd.from_pytorch(inputs[0])
    g = fd.from_pytorch(inputs[1])
    x = fd.ops.cast(x, dtype=DataType.Float) if use_low else x
    g = fd.ops.cast(g, dtype=DataType.Float) if use_low else g
    gb = fd.ops.broadcast_in_dim(g, shape=[14, 66], broadcast_dims=[1])
    y = fd.ops.mul(fd.ops.sigmoid(x), gb)
    fd.add_output(fd.ops.cast(y, dtype=out_dtype if use_low else DataType.Float))


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
