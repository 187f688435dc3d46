# Style F (expanded inputs): a Bool key-padding mask [16] expanded to every
# query row - shape [-1, -1], contiguity [None, True], from
# torch.randint(0, 2, (16,), dtype=torch.bool).as_strided((8, 16), (0, 1)).
import torch
from nvfuser_direct import FusionDefinition, DataType

with FusionDefinition() as fd:
    scores = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    keep = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Bool, is_cpu=False)
    masked = fd.ops.where(keep, scores, -10000.0)
    m = fd.ops.max(masked, dims=[1], keepdim=True)
    e = fd.ops.exp(fd.ops.sub(masked, m))
    fd.add_output(fd.ops.div(e, fd.ops.sum(e, dims=[1], keepdim=True)))

inputs = [
    torch.randn(8, 16, device="cuda"),
    torch.randint(0, 2, (16,), dtype=torch.bool, device="cuda").as_strided((8, 16), (0, 1)),
]
fd.execute(inputs)
