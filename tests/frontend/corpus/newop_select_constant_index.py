# Style G (new op: select), nvfuser_direct repro names: select(tv0, 2, dim=1)
# with a literal index as the printer writes it, dropping dim 1 of a Float
# [5, 4, 18]; the [5, 18] slice is scaled and a row max taken.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.ops.select(tv0, 2, dim=1)
    tv2 = fd.ops.mul(tv1, 3.00000)
    tv3 = fd.ops.max(tv2, dims=[1])
    fd.add_output(tv2)
    fd.add_output(tv3)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((5, 4, 18), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
