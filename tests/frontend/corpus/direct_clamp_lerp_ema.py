# Style A (nvfuser_direct repro as printed): an exponential moving average
# update and a clipped copy. Exercises lerp(tensor, tensor, 0.100000), clamp
# with two inlined constants, and two outputs of one fusion.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    tv2 = fd.ops.lerp(tv0, tv1, 0.100000)
    tv3 = fd.ops.clamp(tv1, -1.50000, 1.50000)
    tv4 = fd.ops.sub(tv1, tv3)
    tv5 = fd.ops.abs(tv4)
    fd.add_output(tv2)
    fd.add_output(tv5)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((1536,), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((1536,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
