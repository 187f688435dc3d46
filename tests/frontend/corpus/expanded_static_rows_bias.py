# Style F (expanded inputs): a bias declared shape=[4, -1] with contiguity
# [None, True] - a static extent 4 on an expanded (stride 0) axis - given as
# torch.randn(24).as_strided((4, 24), (0, 1)). nvfuser_direct repro names.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[4, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.define_tensor(shape=[4, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
    tv2 = fd.ops.add(tv0, tv1)
    tv3 = fd.ops.relu(tv2)
    tv4 = fd.ops.sum(tv3, dims=[0], dtype=DataType.Float)
    fd.add_output(tv3)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.testing.make_tensor((4, 24), dtype=torch.float32, device='cuda:0'),
    torch.randn(24, dtype=torch.float32, device='cuda:0').as_strided((4, 24), (0, 1)),
]
fd.execute(inputs)
