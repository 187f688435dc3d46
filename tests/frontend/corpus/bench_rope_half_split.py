# Style C (benchmark builder): rope_fwd_fusion(fd, dtype, n_head, seq, head_dim)
# with a nested helper rotate_half(x) using slice and cat; builder parameters
# flow into slice end_indices and broadcast shapes. bf16 q [2, 4, 8, 32].
import torch
from nvfuser_direct import FusionDefinition, DataType


def rope_fwd_fusion(fd: FusionDefinition, dtype: DataType, batch: int, n_head: int, seq: int, head_dim: int) -> None:
    half = head_dim // 2
    full = [batch, n_head, seq, head_dim]

    def rotate_half(x):
        x1 = fd.ops.slice(x, start_indices=[0, 0, 0, 0], end_indices=[batch, n_head, seq, half])
        x2 = fd.ops.slice(x, start_indices=[0, 0, 0, half], end_indices=full)
        return fd.ops.cat([fd.ops.neg(x2), x1], dim=-1)

    q = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=dtype, is_cpu=False)
    cos = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    sin = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    q = fd.ops.cast(q, dtype=DataType.Float)
    cos = fd.ops.broadcast_in_dim(fd.ops.cast(cos, dtype=DataType.Float), shape=full, broadcast_dims=[2, 3])
    sin = fd.ops.broadcast_in_dim(fd.ops.cast(sin, dtype=DataType.Float), shape=full, broadcast_dims=[2, 3])
    out = fd.ops.add(fd.ops.mul(q, cos), fd.ops.mul(rotate_half(q), sin))
    fd.add_output(fd.ops.cast(out, dtype=dtype))


B, H, T, D = 2, 4, 8, 32
with FusionDefinition() as fd:
    rope_fwd_fusion(fd, DataType.BFloat16, batch=B, n_head=H, seq=T, head_dim=D)

inputs = [
    torch.randn(B, H, T, D, device="cuda", dtype=torch.bfloat16),
    torch.randn(T, D, device="cuda", dtype=torch.bfloat16),
    torch.randn(T, D, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
