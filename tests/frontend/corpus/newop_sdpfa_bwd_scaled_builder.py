# Style G (new op: sdpfa_bwd), benchmark builder: attention_fwd_bwd_fusion(fd,
# dtype, head_dim) computes scale = 1 / math.sqrt(head_dim) in Python and
# passes scale=/is_causal= by keyword to both sdpfa ops; Half [2, 1, 24, 16].
import math
import torch
from nvfuser_direct import FusionDefinition, DataType


def attention_fwd_bwd_fusion(fd: FusionDefinition, dtype: DataType, head_dim: int) -> None:
    q, k, v, g = [fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True] * 4, dtype=dtype, is_cpu=False) for _ in range(4)]
    scale = fd.define_scalar(1.0 / math.sqrt(head_dim), dtype=DataType.Double)
    causal = fd.define_scalar(False, dtype=DataType.Bool)
    p = fd.define_scalar(0.0, dtype=DataType.Double)
    out, lse, seed, offset = fd.ops.sdpfa_fwd(q, k, v, dropout_p=p, is_causal=causal, scale=scale)
    dq, dk, dv = fd.ops.sdpfa_bwd(
        g, q, k, v, out, lse,
        dropout_p=p, is_causal=causal, philox_seed=seed, philox_offset=offset, scale=scale,
    )
    for t in (dq, dk, dv):
        fd.add_output(t)


HEAD_DIM = 16
with FusionDefinition() as fd:
    attention_fwd_bwd_fusion(fd, DataType.Half, head_dim=HEAD_DIM)

shape = (2, 1, 24, HEAD_DIM)
inputs = [torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(4)]
fd.execute(inputs)
