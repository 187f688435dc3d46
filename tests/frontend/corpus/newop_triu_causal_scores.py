# Style G (new op: triu), test style: attention scores [2, 4, 24, 24] in fp16
# masked above the diagonal with triu(ones, diagonal=1) turned into a bool
# mask, filled with -inf by where, then a softmax; and triu(x, -2) of a
# [3, 24, 40] tensor as its own output (a negative diagonal, rows != cols).
import torch
from nvfuser_direct import FusionDefinition, DataType

inputs = [
    torch.randn(2, 4, 24, 24, device="cuda", dtype=torch.float16),
    torch.randn(3, 24, 40, device="cuda", dtype=torch.float32),
]


def fusion_func(fd: FusionDefinition) -> None:
    scores = fd.from_pytorch(inputs[0])
    x = fd.from_pytorch(inputs[1])
    ones = fd.ops.full(shape=[24, 24], fill_value=1.0, dtype=DataType.Float)
    above = fd.ops.gt(fd.ops.triu(ones, diagonal=1), 0.0)
    above4 = fd.ops.broadcast_in_dim(above, shape=[2, 4, 24, 24], broadcast_dims=[2, 3])
    s = fd.ops.cast(scores, dtype=DataType.Float)
    masked = fd.ops.where(above4, float("-inf"), s)
    m = fd.ops.max(masked, dims=[3], keepdim=True)
    e = fd.ops.exp(fd.ops.sub(masked, m))
    p = fd.ops.div(e, fd.ops.sum(e, dims=[3], keepdim=True))
    fd.add_output(fd.ops.cast(p, dtype=DataType.Half))
    fd.add_output(fd.ops.triu(x, -2))


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
