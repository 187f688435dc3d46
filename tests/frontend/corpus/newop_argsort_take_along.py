# Style G (new op: argsort), nvfuser_direct repro names: argsort(tv0, dim=1,
# descending=True, stable=True) of a Float [8, 30], then take_along_axis to
# get the sorted values; both the Int order and the values are outputs.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.ops.argsort(tv0, dim=1, descending=True, stable=True)
    tv2 = fd.ops.take_along_axis(tv0, tv1, dim=1)
    fd.add_output(tv1)
    fd.add_output(tv2)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((8, 30), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
