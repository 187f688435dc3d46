# Style G (new op: topk), nvfuser_direct repro names: the printed form
# tv1, tv2 = fd.ops.topk(tv0, 4, dim=1, sorted=True) (largest left at its
# default), values and Int indices both outputs; Float [10, 25].
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv1, tv2 = fd.ops.topk(tv0, 4, dim=1, sorted=True)
    tv3 = fd.ops.exp(tv1)
    fd.add_output(tv3)
    fd.add_output(tv2)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((10, 25), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
