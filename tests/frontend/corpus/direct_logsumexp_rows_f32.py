# Style A (nvfuser_direct repro as printed): logsumexp over the last dim of a
# Float [6, 10, 36] tensor, with isfinite guarding the max. Exercises a 3-D
# reduction dims=[2], where with a tensor/constant pair, log, add.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.ops.max(tv0, dims=[2])
    tv2 = fd.ops.isfinite(tv1)
    tv3 = fd.ops.where(tv2, tv1, 0.00000)
    tv4 = fd.ops.broadcast(tv3, is_broadcast_dim=[False, False, True])
    tv5 = fd.ops.expand(tv4, shape=[6, 10, 36])
    tv6 = fd.ops.sub(tv0, tv5)
    tv7 = fd.ops.exp(tv6)
    tv8 = fd.ops.sum(tv7, dims=[2], dtype=DataType.Float)
    tv9 = fd.ops.log(tv8)
    tv10 = fd.ops.add(tv9, tv3)
    fd.add_output(tv10)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((6, 10, 36), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
