# Style C (benchmark builder): cross_entropy_fwd_fusion(fd, dtype,
# ignore_index=-100) - log-softmax, take_along_axis with clamped labels, a
# Bool valid mask from ne(label, ignore_index), masked mean. Half [12, 50].
import torch
from nvfuser_direct import FusionDefinition, DataType


def cross_entropy_fwd_fusion(fd: FusionDefinition, dtype: DataType, ignore_index: int = -100) -> None:
    logits = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    labels = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    x = fd.ops.cast(logits, dtype=DataType.Float) if dtype != DataType.Float else logits
    amax = fd.ops.max(x, dims=[1], keepdim=True)
    shifted = fd.ops.sub(x, amax)
    lse = fd.ops.log(fd.ops.sum(fd.ops.exp(shifted), dims=[1], keepdim=True))
    logp = fd.ops.sub(shifted, lse)
    valid = fd.ops.ne(labels, ignore_index)
    safe = fd.ops.where(valid, labels, 0)
    idx = fd.ops.broadcast_in_dim(safe, shape=[logits.size(0), 1], broadcast_dims=[0])
    picked = fd.ops.squeeze(fd.ops.take_along_axis(logp, idx, dim=1), dims=[1])
    loss = fd.ops.where(valid, fd.ops.neg(picked), 0.0)
    count = fd.ops.sum(fd.ops.cast(valid, dtype=DataType.Float), dims=[0])
    fd.add_output(fd.ops.div(fd.ops.sum(loss, dims=[0]), count))


with FusionDefinition() as fd:
    cross_entropy_fwd_fusion(fd, DataType.Half)

inputs = [
    torch.randn(12, 50, device="cuda", dtype=torch.float16),
    torch.randint(0, 50, (12,), device="cuda", dtype=torch.int64),
]
fd.execute(inputs)
