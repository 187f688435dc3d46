# Style A (nvfuser_direct repro as printed): a [1, -1] input with contiguity
# [None, True] (a real size-1 broadcast dim), squeezed with squeeze(dims=[0]),
# re-broadcast and expanded to [20, 50] and multiplied into a Float matrix.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv2 = fd.ops.squeeze(tv0, dims=[0])
    tv3 = fd.ops.sigmoid(tv2)
    tv4 = fd.ops.broadcast(tv3, is_broadcast_dim=[True, False])
    tv5 = fd.ops.expand(tv4, shape=[20, 50])
    tv6 = fd.ops.mul(tv1, tv5)
    fd.add_output(tv6)
    fd.add_output(tv3)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((1, 50), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((20, 50), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
