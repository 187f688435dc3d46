# Style G (new op: scatter), nvfuser_direct repro names: scatter(tv0, tv1,
# tv2, dim=0) writes rows of src [4, 6] into a Float [24, 6] at Int indices
# that are unique per column (arange(24).as_strided((4, 6), (6, 1))).
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False, stride_order=[1, 0])
    tv2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    tv3 = fd.ops.scatter(tv0, tv1, tv2, dim=0)
    tv4 = fd.ops.sigmoid(tv3)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((24, 6), dtype=torch.float32, device='cuda:0'),
    torch.arange(24, dtype=torch.int64, device='cuda:0').as_strided((4, 6), (6, 1)),
    torch.testing.make_tensor((4, 6), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
