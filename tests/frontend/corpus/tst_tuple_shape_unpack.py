# Style D (test style): `B, S, H = inputs[0].shape` tuple unpacking, products
# in reshape shapes (`[B * S, H]`), `inputs[0].shape[-1]`, and an output that
# is a reshape back to [B, S, H]; bf16 [2, 7, 40].
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [torch.randn(2, 7, 40, device="cuda", dtype=torch.bfloat16)]
B, S, H = inputs[0].shape


def fusion_func(fd: FusionDefinition):
    x = fd.from_pytorch(inputs[0])
    flat = fd.ops.reshape(x, new_shape=[B * S, H])
    xf = fd.ops.cast(flat, dtype=DataType.Float)
    row_max = fd.ops.max(xf, dims=[1], keepdim=True)
    y = fd.ops.sub(xf, row_max)
    hidden = inputs[0].shape[-1]
    back = fd.ops.reshape(fd.ops.cast(y, dtype=DataType.BFloat16), new_shape=[B, S, hidden])
    fd.add_output(back)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
