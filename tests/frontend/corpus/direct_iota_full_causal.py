# Style A (nvfuser_direct repro as printed): build a causal mask inside the
# fusion with iota(length=..., start=..., step=...) and full(shape=...,
# fill_value=..., dtype=...), compare with ge, and apply it with where.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.ops.iota(length=24, start=0, step=1)
    tv2 = fd.ops.broadcast(tv1, is_broadcast_dim=[False, True])
    tv3 = fd.ops.expand(tv2, shape=[24, 24])
    tv4 = fd.ops.broadcast(tv1, is_broadcast_dim=[True, False])
    tv5 = fd.ops.expand(tv4, shape=[24, 24])
    tv6 = fd.ops.ge(tv3, tv5)
    tv7 = fd.ops.broadcast(tv6, is_broadcast_dim=[True, False, False])
    tv8 = fd.ops.expand(tv7, shape=[3, 24, 24])
    tv9 = fd.ops.full(shape=[3, 24, 24], fill_value=0.00000, dtype=DataType.Float)
    tv10 = fd.ops.where(tv8, tv0, tv9)
    tv11 = fd.ops.sum(tv10, dims=[2], dtype=DataType.Float)
    fd.add_output(tv10)
    fd.add_output(tv11)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((3, 24, 24), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
