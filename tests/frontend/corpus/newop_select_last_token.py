# Style G (new op: select), benchmark builder: last_token_fusion(fd, dtype,
# seq_len) picks hidden[:, seq_len - 1, :] with select(h, idx, dim=1), idx a
# define_scalar(seq_len - 1), and projects it with linear; bf16 [2, 9, 32].
import torch
from nvfuser_direct import FusionDefinition, DataType


def last_token_fusion(fd: FusionDefinition, dtype: DataType, seq_len: int) -> None:
    h = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=dtype, is_cpu=False)
    w = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=dtype, is_cpu=False)
    idx = fd.define_scalar(seq_len - 1, dtype=DataType.Int)
    last = fd.ops.select(h, idx, dim=1)
    logits = fd.ops.linear(last, w)
    fd.add_output(fd.ops.cast(logits, dtype=DataType.Float))


SEQ = 9
with FusionDefinition() as fd:
    last_token_fusion(fd, DataType.BFloat16, seq_len=SEQ)

inputs = [
    torch.randn(2, SEQ, 32, device="cuda", dtype=torch.bfloat16),
    torch.randn(16, 32, device="cuda", dtype=torch.bfloat16),
]
fd.execute(inputs)
