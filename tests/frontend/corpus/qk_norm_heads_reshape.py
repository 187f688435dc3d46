# QK-norm as Qwen3 and OLMo2 apply it: q [B, S, H * D] viewed as heads [B, S, H, D],
# RMSNorm over D with a weight [D], back to [B, S, H * D]. BFloat16.
import torch
from nvfuser_direct import FusionDefinition, DataType

def qk_norm(fd: FusionDefinition) -> None:
    q = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    w = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    qh = fd.ops.reshape(q, new_shape=[2, 128, 16, 64])
    qf = fd.ops.cast(qh, dtype=DataType.Float)
    ms = fd.ops.sum(fd.ops.mul(qf, qf), dims=[3], keepdim=True)
    r = fd.ops.rsqrt(fd.ops.add(fd.ops.div(ms, 64.0), 1e-6))
    y = fd.ops.mul(qf, r)
    wb = fd.ops.broadcast_in_dim(w, shape=[2, 128, 16, 64], broadcast_dims=[3])
    y = fd.ops.mul(y, fd.ops.cast(wb, dtype=DataType.Float))
    y = fd.ops.reshape(fd.ops.cast(y, dtype=DataType.BFloat16), new_shape=[2, 128, 1024])
    fd.add_output(y)

with FusionDefinition() as fd:
    qk_norm(fd)

inputs = [
    torch.randn(2, 128, 1024, dtype=torch.bfloat16, device="cuda"),
    torch.randn(64, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
