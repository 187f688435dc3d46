# Style G (new op: embedding_fwd): keyword arguments input=, weight=,
# padding_idx= (a define_scalar(0, dtype=DataType.Int) constant), on Int ids
# [16] into a Float table [64, 20]; the looked-up rows are summed.
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    ids = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    table = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    pad = fd.define_scalar(0, dtype=DataType.Int)
    emb = fd.ops.embedding_fwd(input=ids, weight=table, padding_idx=pad)
    fd.add_output(emb)
    fd.add_output(fd.ops.sum(emb, dims=[0]))

inputs = [
    torch.randint(0, 64, (16,), device="cuda"),
    torch.randn(64, 20, device="cuda"),
]
fd.execute(inputs)
