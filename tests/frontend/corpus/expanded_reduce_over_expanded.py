# Style F (expanded inputs): reductions over an expanded axis - a [-1, -1]
# input with stride 0 on dim 0 (contiguity [None, True]) summed over dims=[0]
# and over dims=[1]; Float [12, 30] from as_strided((12, 30), (0, 1)).
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.ops.sum(tv0, dims=[0], dtype=DataType.Float)
    tv2 = fd.ops.sum(tv0, dims=[1], dtype=DataType.Float)
    tv3 = fd.ops.mul(tv1, 0.0833333)
    fd.add_output(tv3)
    fd.add_output(tv2)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn(30, dtype=torch.float32, device='cuda:0').as_strided((12, 30), (0, 1)),
]
fd.execute(inputs)
