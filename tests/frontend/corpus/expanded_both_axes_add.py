# Style F (expanded inputs): two expanded Float inputs of [6, 9] - one with
# stride 0 on rows (contiguity [None, True]), one with stride 0 on columns
# (contiguity [True, None]) - added into an outer-sum, plus a real matrix.
import torch
from nvfuser_direct import FusionDefinition, DataType
def nvfuser_fusion(fd : FusionDefinition) -> None :
    tv0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
    tv1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False)
    tv2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    tv3 = fd.ops.add(tv0, tv1)
    tv4 = fd.ops.mul(tv3, tv2)
    fd.add_output(tv3)
    fd.add_output(tv4)
with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [
    torch.randn(9, dtype=torch.float32, device='cuda:0').as_strided((6, 9), (0, 1)),
    torch.randn(6, dtype=torch.float32, device='cuda:0').as_strided((6, 9), (1, 0)),
    torch.testing.make_tensor((6, 9), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
